/**
 * What a failed REST call of `github_comment` (as a GitHub App) means, as a {@link DeliveryError}, in the words
 * gh's failures use (failure.ts): passing failures (429, 5xx, a secondary rate limit, the network) retried,
 * the rest said with what to change. GitHub's message is quoted, tokens removed.
 */
import { DeliveryError, messageOf } from '../../../core/errors.js'
import { redact } from '../../shared/redact.js'

/** What the call was doing, and whether repeating it after a timeout is harmless. */
export interface RequestCall {
  readonly doing?: string | undefined
  readonly repeatable: boolean
}

/** How the call ended besides the error. */
export interface RequestEnd {
  readonly timedOut: boolean
  readonly aborted: boolean
  readonly timeoutMs: number
  readonly repo: string
  readonly prNumber: string
}

const TARGET = 'github_comment'

/** The DeliveryError for `err`, thrown by an Octokit request; `cause` keeps the error (its `status`). */
export function requestFailure(err: unknown, call: RequestCall, end: RequestEnd): DeliveryError {
  if (DeliveryError.is(err)) return err
  const doing = call.doing === undefined ? ' (trying to post the comment)' : ` (trying to ${call.doing})`
  if (end.aborted) return new DeliveryError(TARGET, 'aborted: the gateway is shutting down', { cause: err })
  if (end.timedOut) {
    return call.repeatable
      ? new DeliveryError(TARGET, `GitHub did not answer within ${end.timeoutMs} ms${doing}; retried (raise platforms.github.timeout_seconds if it keeps happening)`, { retryable: true, cause: err })
      : new DeliveryError(TARGET, `GitHub did not answer within ${end.timeoutMs} ms; not retried, as the comment may already be posted (use mode: sticky, whose retry edits instead)`, { cause: err })
  }
  const response = (err as { response?: { headers?: Record<string, string | undefined> } }).response
  // Octokit reports a request that got no answer at all (getaddrinfo ENOTFOUND, a refused connection) as a
  // status 500 without a response: the network, not GitHub's answer.
  const status = typeof (err as { status?: unknown }).status === 'number' && response !== undefined ? (err as { status: number }).status : 0
  const headers = response?.headers ?? {}
  const said = redact(messageOf(err)).replace(/ - https:\/\/docs\.github\.com\S*$/, '').slice(0, 300)
  if (status === 0) return new DeliveryError(TARGET, `could not reach GitHub${doing}: ${said}`, { retryable: true, cause: err })
  const rateLimited = status === 429 || (status === 403 && (headers['x-ratelimit-remaining'] === '0' || /rate limit/i.test(said)))
  if (rateLimited || status >= 500) {
    const retryAfter = Number(headers['retry-after'])
    return new DeliveryError(TARGET, `GitHub answered ${status}${doing}: ${said}; retried`, { retryable: true, cause: err, ...(Number.isFinite(retryAfter) ? { retryAfterMs: retryAfter * 1000 } : {}) })
  }
  if (status === 401) return new DeliveryError(TARGET, `GitHub refused the App's installation token (401)${doing}: ${said}`, { cause: err })
  if (status === 403) {
    return new DeliveryError(TARGET, `GitHub refused${doing} (403: ${said}): the App needs the permissions Issues: write and Pull requests: read, accepted by this installation (docs/github-app.md)`, { cause: err })
  }
  if (status === 404) return new DeliveryError(TARGET, `GitHub answered 404${doing}: repository ${end.repo} or pull request #${end.prNumber} not found, or the App is not installed on it`, { cause: err })
  return new DeliveryError(TARGET, `GitHub answered ${status}${doing}: ${said}`, { cause: err })
}
