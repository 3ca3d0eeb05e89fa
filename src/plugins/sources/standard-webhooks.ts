/**
 * The Standard Webhooks signature (standardwebhooks.com; GitLab's signing tokens use it): `webhook-signature`
 * holds one or more space-separated `v1,<base64 HMAC-SHA256>` over `<webhook-id>.<webhook-timestamp>.<raw body>`,
 * and a timestamp more than five minutes from now is refused, so a captured request cannot be replayed later
 * (within the five minutes, its `webhook-id` is its delivery id, and de-dup answers a copy `duplicate`).
 *
 * Written on node:crypto rather than the `standardwebhooks` package, whose `verify` reads `Date.now()` (not the
 * gateway's clock), decodes the body to a string before signing it (two bodies differing in invalid UTF-8 verify
 * alike), parses the body as JSON on success (a signed non-JSON body throws instead of a 400), and hashes with a
 * pure-JS HMAC. The tests sign with that package, so the two agree on every vector.
 */
import { createHmac } from 'node:crypto'
import type { Clock, RawRequest, Source, VerifyResult } from '../../core/types.js'
import { bytesEqual } from '../shared/secure-compare.js'

/** How far a `webhook-timestamp` may be from now, either way, in seconds: the spec's and GitLab's five minutes. */
export const STANDARD_WEBHOOKS_TOLERANCE_SECONDS = 5 * 60

/** The prefix of a secret given as base64 (`whsec_<base64>`), as Standard Webhooks senders hand them out. */
export const SIGNING_SECRET_PREFIX = 'whsec_'

const MISSING: VerifyResult = Object.freeze({ ok: false, reason: 'missing webhook-signature header' })
const NO_ID: VerifyResult = Object.freeze({ ok: false, reason: 'missing webhook-id or webhook-timestamp header' })
const MALFORMED: VerifyResult = Object.freeze({ ok: false, reason: 'malformed webhook-signature or webhook-timestamp header' })
const STALE: VerifyResult = Object.freeze({ ok: false, reason: 'webhook-timestamp more than 5 minutes old (a replay, or a clock that is off)' })
const FUTURE: VerifyResult = Object.freeze({ ok: false, reason: 'webhook-timestamp more than 5 minutes ahead (a clock that is off)' })
const NO_SECRET: VerifyResult = Object.freeze({ ok: false, reason: 'no secret configured for this route' })
const MISMATCH: VerifyResult = Object.freeze({ ok: false, reason: 'signature mismatch' })

/** Exactly 32 bytes of standard base64 (44 characters with its padding). */
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/
/** Seconds since the epoch, digits only (no sign, no fraction, no exponent). */
const SECONDS = /^\d{1,12}$/
/** Canonical standard base64, for a `whsec_` secret. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Whether a route secret is a Standard Webhooks signing secret (`whsec_<base64>`). */
export function isSigningSecret(secret: string): boolean {
  return secret.startsWith(SIGNING_SECRET_PREFIX)
}

/**
 * The HMAC key of a secret: a `whsec_` one's base64 decoded; any other, its UTF-8 bytes. Undefined for an empty
 * key or a `whsec_` secret that is not base64 (it can verify nothing).
 */
export function signingKey(secret: string): Buffer | undefined {
  if (!isSigningSecret(secret)) return secret === '' ? undefined : Buffer.from(secret, 'utf8')
  const encoded = secret.slice(SIGNING_SECRET_PREFIX.length)
  return encoded !== '' && BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined
}

/**
 * Checks a request's Standard Webhooks signature against `secrets` (any passes, for rotation) at `now`. Every
 * key is tried against every signature even after a match, so timing tells nothing of which matched.
 */
export function verifyStandardWebhook(req: RawRequest, secrets: readonly string[], now: number, scheme: string): VerifyResult {
  const header = req.headers['webhook-signature']
  if (header === undefined || header === '') return MISSING
  const id = req.headers['webhook-id']
  const timestamp = req.headers['webhook-timestamp']
  if (!id || !timestamp) return NO_ID
  if (!SECONDS.test(timestamp)) return MALFORMED
  const age = now / 1000 - Number(timestamp)
  if (age > STANDARD_WEBHOOKS_TOLERANCE_SECONDS) return STALE
  if (-age > STANDARD_WEBHOOKS_TOLERANCE_SECONDS) return FUTURE
  // Other versions (`v1a`, asymmetric) are skipped, as the spec says; a header with no v1 signature is malformed.
  const signatures: Buffer[] = []
  for (const part of header.split(' ')) {
    if (!part.startsWith('v1,')) continue
    const value = part.slice(3)
    if (BASE64_SHA256.test(value)) signatures.push(Buffer.from(value, 'base64'))
  }
  if (signatures.length === 0) return MALFORMED
  const keys = secrets.map(signingKey).filter((key) => key !== undefined)
  if (keys.length === 0) return NO_SECRET
  let matched = false
  for (const key of keys) {
    const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(req.body).digest()
    for (const signature of signatures) if (bytesEqual(mac, signature)) matched = true
  }
  return matched ? Object.freeze({ ok: true, scheme }) : MISMATCH
}

/** Options of {@link standardWebhooksSource}. */
export interface StandardWebhooksOptions {
  /** The clock the timestamp is checked against; the gateway's (`Date.now` by default). */
  readonly now?: Clock | undefined
}

/**
 * Any sender that signs the Standard Webhooks way (Svix and the services on it, GitLab's signing tokens, your
 * own) as a source: it decides requests that carry `webhook-signature`. The delivery id is `webhook-id` (the
 * same across the sender's retries); the event type comes from the payload's `type`, as the spec's payloads
 * carry it. A route secret `whsec_<base64>` is the key the sender gave; any other secret is used as its bytes.
 *
 * @example
 * ```ts
 * const result = standardWebhooksSource().verify(request, ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'])
 * ```
 */
export function standardWebhooksSource(options: StandardWebhooksOptions = {}): Source {
  const now = options.now ?? Date.now
  return {
    name: 'standard_webhooks',
    header: 'webhook-signature',
    deliveryId: (headers) => headers['webhook-id'] || undefined,
    verify: (req, secrets) => verifyStandardWebhook(req, secrets, now(), 'standard-webhooks'),
  }
}
