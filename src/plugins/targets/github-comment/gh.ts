/**
 * One way to run gh for `github_comment`: an argument array (never a shell), text on stdin, the target's time
 * limit and environment, and a failed run turned into the {@link DeliveryError} that says why.
 */
import type { DeliveryError } from '../../../core/errors.js'
import { runProcess } from '../../../core/agents/run-process.js'
import { ghFailure } from './failure.js'

/** What every gh run of one delivery shares. */
export interface GhRunner {
  readonly ghPath: string
  readonly repo: string
  readonly prNumber: string
  readonly timeoutMs: number
  readonly env?: NodeJS.ProcessEnv | undefined
  readonly cwd?: string | undefined
  readonly signal: AbortSignal
}

/** How one run is described in its error, and whether running it again after a timeout is harmless. */
export interface GhStep {
  /** What the run does, for the error: `list the comments`, `edit comment 123`; nothing for the plain comment. */
  readonly doing?: string | undefined
  /** True for a run whose repetition does no harm (a read, an edit): a timeout is then retried. */
  readonly repeatable: boolean
  /** Most stdout bytes read (1 MiB by default): a page of patches needs more than a page of one-line rows. */
  readonly maxOutputBytes?: number | undefined
}

/** Runs gh: its stdout, or the DeliveryError that says why it failed and whether GitHub answered 404. */
export async function runGh(gh: GhRunner, args: readonly string[], step: GhStep, input = ''): Promise<GhOutcome> {
  const result = await runProcess([gh.ghPath, ...args], {
    input,
    timeoutMs: gh.timeoutMs,
    signal: gh.signal,
    // A page of 100 comments is listed as one short line each (see sticky-comment.ts), far under this.
    maxOutputBytes: step.maxOutputBytes ?? 1024 * 1024,
    env: gh.env,
    cwd: gh.cwd,
  })
  if (result.error === undefined && !result.timedOut && !result.aborted && result.code === 0) return { ok: true, stdout: result.stdout }
  const error = ghFailure(result, { ghPath: gh.ghPath, repo: gh.repo, prNumber: gh.prNumber, timeoutMs: gh.timeoutMs, ...step }, gh.env)
  // gh api prints GitHub's error body on stdout; review mode reads a 422's `errors` from it.
  return { ok: false, error, notFound: result.code === 1 && /\(HTTP 404\)/.test(result.stderr), unprocessable: result.code === 1 && /\(HTTP 422\)/.test(result.stderr), stdout: result.stdout }
}

/** How a gh run ended: its output, or why it failed (`notFound`: GitHub answered 404). */
export type GhOutcome =
  | { readonly ok: true; readonly stdout: string }
  /** `unprocessable`: GitHub answered 422; `stdout`: what gh printed (GitHub's error body for an HTTP error). */
  | { readonly ok: false; readonly error: DeliveryError; readonly notFound: boolean; readonly unprocessable: boolean; readonly stdout: string }

/** gh's stdout, or the failure thrown. */
export async function ghOutput(gh: GhRunner, args: readonly string[], step: GhStep, input = ''): Promise<string> {
  const outcome = await runGh(gh, args, step, input)
  if (!outcome.ok) throw outcome.error
  return outcome.stdout
}
