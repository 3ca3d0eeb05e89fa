/**
 * Builds a verifier for schemes that put a hex HMAC-SHA256 of the raw body in a header (GitHub's
 * `X-Hub-Signature-256`, the generic `X-Webhook-Signature`). The schemes differ only in header name and prefix.
 */
import type { Source, VerifyResult } from '../../core/types.js'
import { matchesAnyHmac, parseHexSha256 } from '../shared/secure-compare.js'

/** How one HMAC scheme spells its header. */
export interface HmacSchemeOptions {
  /** The verifier's name, for logs and for replacing it with a plugin. */
  readonly name: string
  /** Lower-case header that carries the signature. */
  readonly header: string
  /** What a passing result reports as its scheme. */
  readonly scheme: string
  /** Text before the hex digest (`sha256=` for GitHub); empty for none. */
  readonly prefix: string
  /** Lower-case header with the sender's delivery id (stable across its retries), if it sends one. */
  readonly deliveryIdHeader?: string | undefined
  /** Lower-case header with the event type, if the sender sends one. */
  readonly eventHeader?: string | undefined
}

// Frozen results: the hot path of a forgery flood allocates nothing but the HMAC itself.
const MISSING: VerifyResult = Object.freeze({ ok: false, reason: 'missing signature header' })
const MALFORMED: VerifyResult = Object.freeze({ ok: false, reason: 'malformed signature header' })
const NO_SECRET: VerifyResult = Object.freeze({ ok: false, reason: 'no secret configured for this route' })
const MISMATCH: VerifyResult = Object.freeze({ ok: false, reason: 'signature mismatch' })

/**
 * Creates a source for a hex HMAC-SHA256 signature scheme. Failures are values with a reason that never
 * carries the secret or the presented signature.
 *
 * @example
 * ```ts
 * const verifier = hmacSignatureVerifier({ name: 'acme', header: 'x-acme-signature', scheme: 'acme', prefix: 'v1=' })
 * ```
 */
export function hmacSignatureVerifier(options: HmacSchemeOptions): Source {
  const { name, header, prefix, deliveryIdHeader, eventHeader } = options
  const passed: VerifyResult = Object.freeze({ ok: true, scheme: options.scheme })
  return {
    name,
    header,
    ...(deliveryIdHeader === undefined ? {} : { deliveryId: (headers: Readonly<Record<string, string>>) => headers[deliveryIdHeader] || undefined }),
    ...(eventHeader === undefined ? {} : { eventType: (headers: Readonly<Record<string, string>>) => headers[eventHeader] || undefined }),
    verify(req, secrets) {
      const value = req.headers[header]
      if (value === undefined || value === '') return MISSING
      if (!value.startsWith(prefix)) return MALFORMED
      const digest = parseHexSha256(value.slice(prefix.length))
      if (digest === undefined) return MALFORMED
      if (!secrets.some((s) => s !== '')) return NO_SECRET
      return matchesAnyHmac(digest, req.body, secrets) ? passed : MISMATCH
    },
  }
}
