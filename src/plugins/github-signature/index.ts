import type { Verifier } from '../../core/types.js'
import { hmacSignatureVerifier } from '../shared/hmac-verifier.js'

/**
 * Verifies GitHub's `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>` against a route's
 * secrets (any of them passes, for rotation). The legacy `sha1=` header is refused as malformed.
 *
 * @example
 * ```ts
 * const result = githubSignatureVerifier().verify(request, ['current-secret', 'previous-secret'])
 * if (!result.ok) console.warn(result.reason) // 'signature mismatch', never the secret
 * ```
 */
export function githubSignatureVerifier(): Verifier {
  return hmacSignatureVerifier({
    name: 'github-signature',
    header: 'x-hub-signature-256',
    scheme: 'github-hmac-sha256',
    prefix: 'sha256=',
  })
}
