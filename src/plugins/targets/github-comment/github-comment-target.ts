import { DeliveryError } from '../../../core/errors.js'
import type { DeliveryTarget, Route } from '../../../core/types.js'
import { EMPTY_ANSWER } from '../chat/chat-target.js'
import { runProcess } from '../../process/run-process.js'
import { ghFailure } from './failure.js'
import { prNumberProblem, repoProblem } from './validate.js'

/** Options of {@link githubCommentDelivery} (`platforms.github`). */
export interface GithubCommentOptions {
  /** The gh executable: a name looked up on PATH or a path (`platforms.github.gh_path`). Defaults to `gh`. */
  readonly ghPath?: string | undefined
  /** gh is stopped after this long (`platforms.github.timeout_seconds` × 1000). Defaults to 60,000 ms. */
  readonly timeoutMs?: number | undefined
  /** gh's whole environment (where `GH_TOKEN` or `GH_CONFIG_DIR` come from). Defaults to the gateway's own. */
  readonly env?: NodeJS.ProcessEnv | undefined
  /** gh's working directory; the gateway's own by default. */
  readonly cwd?: string | undefined
}

/** GitHub refuses a comment body over 65,536 characters. */
export const GITHUB_COMMENT_LIMIT = 65_536

/**
 * The `github_comment` delivery target: `gh pr comment <pr_number> --repo <owner/repo> --body-file -` with the
 * answer on stdin, as an argument array (never a shell). `repo` and `pr_number` come from the route's
 * `deliver_extra` and are checked before gh runs. A longer answer than GitHub takes is cut, with a note.
 *
 * @example
 * ```ts
 * const target = githubCommentDelivery({ ghPath: '/usr/local/bin/gh', timeoutMs: 60_000 })
 * // route: deliver: github_comment, deliver_extra: { repo: "{repository.full_name}", pr_number: "{number}" }
 * ```
 */
export function githubCommentDelivery(options: GithubCommentOptions = {}): DeliveryTarget {
  const ghPath = options.ghPath ?? 'gh'
  const timeoutMs = options.timeoutMs ?? 60_000
  return {
    name: 'github_comment',
    publishes: true,
    checkRoute: routeProblem,
    async deliver(answer, ctx) {
      const repo = answer.extra['repo'] ?? ''
      const prNumber = answer.extra['pr_number'] ?? ''
      const problem = repoProblem(repo) ?? prNumberProblem(prNumber)
      if (problem !== undefined) throw new DeliveryError('github_comment', `${problem}; gh was not run`)
      const argv = [ghPath, 'pr', 'comment', prNumber, '--repo', repo, '--body-file', '-']
      const result = await runProcess(argv, {
        input: commentBody(answer.text),
        timeoutMs,
        signal: ctx.signal,
        maxOutputBytes: 64 * 1024,
        env: options.env,
        cwd: options.cwd,
      })
      if (result.error !== undefined || result.timedOut || result.aborted || result.code !== 0) {
        throw ghFailure(result, { ghPath, repo, prNumber, timeoutMs }, options.env)
      }
      // gh prints the new comment's URL: the one thing worth keeping from its output.
      ctx.log.debug('comment posted', { route: answer.route, delivery: answer.deliveryId, url: result.stdout.trim().slice(0, 200) })
    },
  }
}

/**
 * The comment to post: an empty answer becomes a short note (GitHub refuses an empty body), a long one is cut at
 * GitHub's limit with a note saying so.
 */
export function commentBody(text: string): string {
  if (text.trim() === '') return EMPTY_ANSWER
  if (text.length <= GITHUB_COMMENT_LIMIT) return text
  const note = `\n\n… (cut: the answer was ${text.length.toLocaleString('en-US')} characters; GitHub comments hold at most 65,536)`
  let end = GITHUB_COMMENT_LIMIT - note.length
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end -= 1 // never end on half of a surrogate pair
  return text.slice(0, end) + note
}

/** A route delivering here must say where: both keys, and literal values must already be valid. */
function routeProblem(route: Route): string | undefined {
  const missing = ['repo', 'pr_number'].filter((key) => (route.deliverExtra[key] ?? '').trim() === '')
  if (missing.length > 0) {
    return `route "${route.name}" delivers to github_comment, which needs deliver_extra.repo (e.g. "{repository.full_name}") and deliver_extra.pr_number (e.g. "{number}"); missing: ${missing.join(', ')}`
  }
  const repo = route.deliverExtra['repo'] ?? ''
  const prNumber = route.deliverExtra['pr_number'] ?? ''
  // A template is only known at delivery time; a literal can be checked now.
  const problem = (repo.includes('{') ? undefined : repoProblem(repo)) ?? (prNumber.includes('{') ? undefined : prNumberProblem(prNumber))
  return problem === undefined ? undefined : `route "${route.name}": ${problem}`
}
