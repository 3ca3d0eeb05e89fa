import type { Source, VerifyResult } from '../../core/types.js'
import { matchesAnyToken } from '../shared/secure-compare.js'

const MISSING: VerifyResult = Object.freeze({ ok: false, reason: 'missing token header' })
const NO_SECRET: VerifyResult = Object.freeze({ ok: false, reason: 'no secret configured for this route' })
const MISMATCH: VerifyResult = Object.freeze({ ok: false, reason: 'token mismatch' })
const PASSED: VerifyResult = Object.freeze({ ok: true, scheme: 'gitlab-token' })

/**
 * GitLab as a source: verifies `X-Gitlab-Token`, a plain shared secret, by a constant-time comparison with each
 * of a route's secrets (GitLab does not sign the body, so this proves only that the sender knows the token).
 * The delivery id is `Idempotency-Key`, which GitLab (17.4+) keeps the same across its automatic retries, else
 * `X-Gitlab-Event-UUID`; the event type is `X-Gitlab-Event` (`Merge Request Hook`, `Push Hook`, ...).
 *
 * @example
 * ```ts
 * const result = gitlabSource().verify(request, [process.env.GITLAB_WEBHOOK_TOKEN ?? ''])
 * ```
 */
export function gitlabSource(): Source {
  return {
    name: 'gitlab',
    header: 'x-gitlab-token',
    // GitLab disables a hook after four failed deliveries in a row, a 429 included: over the limit, it waits.
    overLimit: 'defer',
    deliveryId: (headers) => headers['idempotency-key'] || headers['x-gitlab-event-uuid'] || undefined,
    eventType: (headers) => headers['x-gitlab-event'] || undefined,
    verify(req, secrets) {
      const token = req.headers['x-gitlab-token']
      if (token === undefined || token === '') return MISSING
      if (!secrets.some((s) => s !== '')) return NO_SECRET
      return matchesAnyToken(token, secrets) ? PASSED : MISMATCH
    },
  }
}
