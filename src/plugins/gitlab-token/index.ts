import type { Verifier, VerifyResult } from '../../core/types.js'
import { matchesAnyToken } from '../shared/secure-compare.js'

const MISSING: VerifyResult = Object.freeze({ ok: false, reason: 'missing token header' })
const NO_SECRET: VerifyResult = Object.freeze({ ok: false, reason: 'no secret configured for this route' })
const MISMATCH: VerifyResult = Object.freeze({ ok: false, reason: 'token mismatch' })
const PASSED: VerifyResult = Object.freeze({ ok: true, scheme: 'gitlab-token' })

/**
 * Verifies GitLab's `X-Gitlab-Token`, a plain shared secret, by a constant-time comparison with each of a
 * route's secrets. GitLab does not sign the body, so this proves only that the sender knows the token.
 *
 * @example
 * ```ts
 * const result = gitlabTokenVerifier().verify(request, [process.env.GITLAB_WEBHOOK_TOKEN ?? ''])
 * ```
 */
export function gitlabTokenVerifier(): Verifier {
  return {
    name: 'gitlab-token',
    header: 'x-gitlab-token',
    verify(req, secrets) {
      const token = req.headers['x-gitlab-token']
      if (token === undefined || token === '') return MISSING
      if (!secrets.some((s) => s !== '')) return NO_SECRET
      return matchesAnyToken(token, secrets) ? PASSED : MISMATCH
    },
  }
}
