import { describe, expect, it } from 'vitest'
import { genericSource } from '../../src/plugins/sources/generic-signature.js'
import { verifierContract } from '../../src/testing/verifier.js'
import { githubPayload, hmacHex, signGithub } from '../fixtures/github.js'

verifierContract('genericSource', genericSource, hmacHex, { body: githubPayload('pull_request', 'opened') })

describe('genericSource', () => {
  const verifier = genericSource()
  const body = githubPayload('push')
  const verify = (signature: string) =>
    verifier.verify({ method: 'POST', path: '/webhooks/x', headers: { 'x-webhook-signature': signature }, body }, [
      's3cret',
    ])

  it('reads X-Webhook-Signature and passes a bare hex HMAC', () => {
    expect(verifier.header).toBe('x-webhook-signature')
    expect(verify(hmacHex(body, 's3cret'))).toEqual({ ok: true, scheme: 'hmac-sha256' })
  })

  it('refuses a GitHub-style sha256= prefix as malformed', () => {
    expect(verify(signGithub(body, 's3cret'))).toEqual({ ok: false, reason: 'malformed signature header' })
  })
})
