/**
 * What a failed run of gh means, as a {@link DeliveryError}: gh missing, not authenticated, repository or pull
 * request not found, a passing GitHub failure (retried), or anything else with gh's stderr, tokens removed.
 */
import { DeliveryError } from '../../../core/errors.js'
import type { RunProcessResult } from '../../../core/agents/run-process.js'
import { redact } from '../../shared/redact.js'

/** What the classification needs to know about the call. */
export interface GhCall {
  readonly ghPath: string
  readonly repo: string
  readonly prNumber: string
  readonly timeoutMs: number
  /** What the run did, for the message (`list the comments`); the plain comment when absent. */
  readonly doing?: string | undefined
  /** A run that does no harm when repeated (a read, an edit of one comment): a timeout is then retried. */
  readonly repeatable?: boolean | undefined
}

const TARGET = 'github_comment'

// gh prints these on a network failure or a GitHub hiccup; trying again later can succeed.
const PASSING = /\bHTTP (?:429|5\d\d)\b|rate limit|was submitted too quickly|\btimeout\b|i\/o timeout|connection (?:reset|refused)|dial tcp|TLS handshake|unexpected EOF/i
// Tokens gh may be given through the environment; their values are never shown.
const TOKEN_VARIABLES = ['GH_TOKEN', 'GITHUB_TOKEN', 'GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN']

/** The DeliveryError for a run of gh that did not post the comment. */
export function ghFailure(result: RunProcessResult, call: GhCall, env: NodeJS.ProcessEnv = process.env): DeliveryError {
  const { error } = result
  if (error?.code === 'ENOENT') {
    return new DeliveryError(TARGET, `gh is not installed or not on PATH (looked for "${call.ghPath}"): install GitHub CLI from https://cli.github.com or set platforms.github.gh_path`)
  }
  if (error !== undefined) return new DeliveryError(TARGET, `could not start "${call.ghPath}": ${error.code ?? error.message}`)
  if (result.aborted) return new DeliveryError(TARGET, 'aborted: the gateway is shutting down')
  const doing = call.doing === undefined ? '' : ` (trying to ${call.doing})`
  if (result.timedOut) {
    if (call.repeatable === true) {
      return new DeliveryError(TARGET, `gh did not finish within ${call.timeoutMs} ms${doing} and was stopped; retried (raise platforms.github.timeout_seconds if it keeps happening)`, { retryable: true })
    }
    // Not retried: gh may have posted before it hung, and a second comment is worse than none.
    return new DeliveryError(TARGET, `gh did not finish within ${call.timeoutMs} ms and was stopped; not retried, as the comment may already be posted (raise platforms.github.timeout_seconds, or use mode: sticky, whose retry edits instead)`)
  }
  const stderr = redact(result.stderr.trim(), TOKEN_VARIABLES.map((name) => env[name]))
  if (result.code === 4 || /gh auth login|not logged in|HTTP 401|Bad credentials/i.test(stderr)) {
    return new DeliveryError(TARGET, 'gh is not authenticated: run `gh auth login` as the user the gateway runs as, or set GH_TOKEN')
  }
  if (/Could not resolve to a Repository/i.test(stderr)) {
    return new DeliveryError(TARGET, `repository ${call.repo} not found, or the gh account cannot see it`)
  }
  if (/Could not resolve to a PullRequest|no pull requests? found/i.test(stderr)) {
    return new DeliveryError(TARGET, `pull request #${call.prNumber} not found in ${call.repo}`)
  }
  // REST (`gh api`) says only 404, for a missing repository, pull request or comment, or one the token cannot see.
  if (/\(HTTP 404\)/.test(stderr)) {
    return new DeliveryError(TARGET, `GitHub answered 404${doing}: repository ${call.repo} or pull request #${call.prNumber} not found, or the gh account cannot see it`)
  }
  const how = result.code === null ? `was killed by ${result.signal ?? 'a signal'}` : `exited with code ${result.code}`
  const tail = stderr.length > 500 ? `…${stderr.slice(-500)}` : stderr
  return new DeliveryError(TARGET, `gh ${how}${doing}: ${tail || '(no stderr)'}`, { retryable: PASSING.test(stderr) })
}
