import type { Clock, Source, VerifyResult } from '../../core/types.js'
import { matchesAnyToken } from '../shared/secure-compare.js'
import { gitlabOrigin } from './origins.js'
import { isSigningSecret, verifyStandardWebhook } from './standard-webhooks.js'

const MISSING: VerifyResult = Object.freeze({ ok: false, reason: 'missing token header' })
const NO_SECRET: VerifyResult = Object.freeze({ ok: false, reason: 'no secret configured for this route' })
const MISMATCH: VerifyResult = Object.freeze({ ok: false, reason: 'token mismatch' })
const PASSED: VerifyResult = Object.freeze({ ok: true, scheme: 'gitlab-token' })

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
 * kind pass alike, for rotation. The delivery id is `Idempotency-Key`, which GitLab (17.4+) keeps the same
 * across its automatic retries (its `webhook-id` is the same value), else `X-Gitlab-Event-UUID`; the event type
 * is `X-Gitlab-Event` (`Merge Request Hook`, `Push Hook`, ...).
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
    deliveryId: (headers) => headers['idempotency-key'] || headers['webhook-id'] || headers['x-gitlab-event-uuid'] || undefined,
    eventType: (headers) => headers['x-gitlab-event'] || undefined,
    origin: gitlabOrigin,
    // GitLab disables a hook after four failed deliveries in a row, a 429 included: over the limit, it waits.
    overLimit: 'defer',
    verify(req, secrets) {
      const signing = secrets.filter(isSigningSecret)
      if (signing.length > 0) return verifyStandardWebhook(req, signing, now(), 'gitlab-signing-token')
      const token = req.headers['x-gitlab-token']
      if (token === undefined || token === '') return MISSING
      if (!secrets.some((s) => s !== '')) return NO_SECRET
      return matchesAnyToken(token, secrets) ? PASSED : MISMATCH
    },
  }
}
