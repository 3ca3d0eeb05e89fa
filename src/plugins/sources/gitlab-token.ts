import type { Clock, Source, VerifyResult } from '../../core/types.js'
import { matchesAnyToken } from '../shared/secure-compare.js'
import { gitlabOrigin } from './origins.js'
import { isSigningSecret, verifyStandardWebhook } from './standard-webhooks.js'

const MISSING: VerifyResult = Object.freeze({ ok: false, reason: 'missing token header' })
const NO_SECRET: VerifyResult = Object.freeze({ ok: false, reason: 'no secret configured for this route' })
const MISMATCH: VerifyResult = Object.freeze({ ok: false, reason: 'token mismatch' })
const PASSED: VerifyResult = Object.freeze({ ok: true, scheme: 'gitlab-token' })
const KEY_DISAGREES: VerifyResult = Object.freeze({ ok: false, reason: 'Idempotency-Key differs from the signed webhook-id' })

/** Options of {@link gitlabSource}. */
export interface GitlabSourceOptions {
  /** The clock a signing token's timestamp is checked against; the gateway's (`Date.now` by default). */
  readonly now?: Clock | undefined
}

/**
 * GitLab as a source. A route whose secrets include a signing token (`whsec_<base64>`, as GitLab shows it)
 * verifies `webhook-signature` (Standard Webhooks: an HMAC of the id, the timestamp and the body, refused five
 * minutes after it was made) and refuses requests without it, so a captured request cannot be replayed with its
 * signature stripped. Any other route verifies `X-Gitlab-Token`, a plain shared secret, by a constant-time
 * comparison with each of its secrets (it proves only that the sender knows the token). Several secrets of a
 * kind pass alike, for rotation. The delivery id of a signed delivery is `webhook-id`, which the signature
 * covers (so a captured request re-sent with another id header is still a duplicate), and an `Idempotency-Key`
 * that differs from it is refused (GitLab sends the same value in both); an unsigned delivery's is
 * `Idempotency-Key`, which GitLab (17.4+) keeps the same across its automatic retries, else `webhook-id`, else
 * `X-Gitlab-Event-UUID`. The event type is `X-Gitlab-Event` (`Merge Request Hook`, `Push Hook`, ...).
 *
 * @example
 * ```ts
 * const result = gitlabSource().verify(request, [process.env.GITLAB_WEBHOOK_TOKEN ?? ''])
 * ```
 */
export function gitlabSource(options: GitlabSourceOptions = {}): Source {
  const now = options.now ?? Date.now
  return {
    name: 'gitlab',
    header: 'x-gitlab-token',
    // A hook with a signing token and no secret token sends no X-Gitlab-Token: its event header names it.
    claims: (headers) => headers['x-gitlab-event'] !== undefined && headers['webhook-signature'] !== undefined,
    // A signed delivery's id is the one its signature covers; the unsigned headers only where nothing is signed.
    deliveryId: (headers) =>
      (headers['webhook-signature'] ? headers['webhook-id'] : headers['idempotency-key'] || headers['webhook-id'] || headers['x-gitlab-event-uuid']) || undefined,
    eventType: (headers) => headers['x-gitlab-event'] || undefined,
    origin: gitlabOrigin,
    // GitLab disables a hook after four failed deliveries in a row, a 429 included: over the limit, it waits.
    overLimit: 'defer',
    verify(req, secrets) {
      const signing = secrets.filter(isSigningSecret)
      if (signing.length > 0) {
        const result = verifyStandardWebhook(req, signing, now(), 'gitlab-signing-token')
        if (!result.ok) return result
        const key = req.headers['idempotency-key']
        // A different key would not change the id (webhook-id decides), but no honest GitLab sends one: refuse it.
        return key !== undefined && key !== req.headers['webhook-id'] ? KEY_DISAGREES : result
      }
      const token = req.headers['x-gitlab-token']
      if (token === undefined || token === '') return MISSING
      if (!secrets.some((s) => s !== '')) return NO_SECRET
      return matchesAnyToken(token, secrets) ? PASSED : MISMATCH
    },
  }
}
