import type { Source } from '../../core/types.js'
import { hmacSignatureVerifier } from './hmac-verifier.js'
import { githubOrigin } from './origins.js'

/**
 * GitHub as a source: verifies `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>` against a
 * route's secrets (any of them passes, for rotation; the legacy `sha1=` header is refused as malformed), and
 * reads the delivery id from `X-GitHub-Delivery` (which GitHub's Redeliver reuses) and the event type from
 * `X-GitHub-Event`. A job keeps the pull request's (or issue's) page and the hook that delivered it
 * (`X-GitHub-Hook-ID`): what reconcile reads to know which hooks to look at.
 *
 * @example
 * ```ts
 * const result = githubSource().verify(request, ['current-secret', 'previous-secret'])
 * if (!result.ok) console.warn(result.reason) // 'signature mismatch', never the secret
 * ```
 */
export function githubSource(): Source {
  const source = hmacSignatureVerifier({
    name: 'github',
    header: 'x-hub-signature-256',
    scheme: 'github-hmac-sha256',
    prefix: 'sha256=',
    deliveryIdHeader: 'x-github-delivery',
    eventHeader: 'x-github-event',
  })
  return { ...source, origin: githubOrigin }
}
