import type { Verifier } from '../../core/types.js'
import { hmacSignatureVerifier } from '../shared/hmac-verifier.js'

/**
 * Verifies `X-Webhook-Signature: <hex HMAC-SHA256(secret, raw body)>` (no prefix), the scheme for senders other
 * than GitHub and GitLab, and the one `hookpilot test` signs with.
 *
 * @example
 * ```ts
 * const result = genericSignatureVerifier().verify(request, [secret])
 * ```
 */
export function genericSignatureVerifier(): Verifier {
  return hmacSignatureVerifier({
    name: 'generic-signature',
    header: 'x-webhook-signature',
    scheme: 'hmac-sha256',
    prefix: '',
  })
}
