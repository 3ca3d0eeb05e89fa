/**
 * The startup check of the `github_comment` target, run when a route delivers through gh: gh is on PATH (a
 * problem when it is not: no comment could ever be posted) and `gh auth status` succeeds (a warning when it does
 * not: a login or a `GH_TOKEN` can be set right while the gateway runs, and a GitHub outage at start must not
 * stop a restart). gh runs as the deliveries will run it, with the same path and environment, never a shell (in
 * the gateway's folder: the agents' folder is made when the gateway starts).
 */
import type { StartupFinding } from '../../../core/types.js'
import { missingProgramProblem } from '../../../core/agents/find-program.js'
import { runProcess } from '../../../core/agents/run-process.js'

/** `gh auth status` may ask GitHub; a start waits this long at most for its answer. */
export const AUTH_CHECK_MS = 10_000

/** What is wrong with gh for posting comments, found now rather than by the first job. */
export async function ghPreflight(ghPath: string, env: NodeJS.ProcessEnv | undefined): Promise<StartupFinding[]> {
  const missing = missingProgramProblem(ghPath, env, 'gh (GitHub CLI, which posts the comments)')
  if (missing !== undefined) {
    return [{ severity: 'problem', path: 'platforms.github.gh_path', message: `${missing}; install it from https://cli.github.com or set platforms.github.gh_path` }]
  }
  const result = await runProcess([ghPath, 'auth', 'status'], { timeoutMs: AUTH_CHECK_MS, maxOutputBytes: 16 * 1024, env })
  if (result.code === 0) return []
  // gh's own output is not quoted: it may name the account or part of a token.
  const how = result.error !== undefined ? `could not be started (${result.error.code ?? result.error.message})`
    : result.timedOut ? `did not answer within ${AUTH_CHECK_MS / 1000} s`
    : `failed (${result.code === null ? `killed by ${result.signal ?? 'a signal'}` : `exit ${result.code}`})`
  return [{
    severity: 'warning',
    path: 'platforms.github',
    message: `"${ghPath} auth status" ${how}: comments will fail until gh is logged in. Run "gh auth login" as the user the gateway runs as, or set GH_TOKEN in its environment`,
  }]
}
