import type { Source } from '../../core/types.js'
import { hmacSignatureVerifier } from './hmac-verifier.js'

/**
 * Any other sender as a source: verifies `X-Webhook-Signature: <hex HMAC-SHA256(secret, raw body)>` (no
 * prefix), the scheme `hookpilot test` signs with. Its delivery id is the common `X-Request-ID`, and its event
 * type comes from the payload (`event_type`, else `type`).
 *
 * @example
 * ```ts
 * const result = genericSource().verify(request, [secret])
 * ```
 */
export function genericSource(): Source {
  return hmacSignatureVerifier({
    name: 'generic',
    header: 'x-webhook-signature',
    scheme: 'hmac-sha256',
    prefix: '',
  })
}
