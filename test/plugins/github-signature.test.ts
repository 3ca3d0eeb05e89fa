import { describe, expect, it } from 'vitest'
import { githubSource } from '../../src/plugins/sources/github-signature.js'
import { verifierContract } from '../../src/testing/verifier.js'
import { githubHeaders, githubPayload, hmacHex, signGithub } from '../fixtures/github.js'

verifierContract('githubSource', githubSource, signGithub, { body: githubPayload('pull_request', 'opened') })

describe('githubSource', () => {
  const verifier = githubSource()
  const secret = 'gh-webhook-secret'
  const verify = (body: Buffer, signature: string, secrets: readonly string[] = [secret]) => {
    const headers = { 'x-hub-signature-256': signature }
    return verifier.verify({ method: 'POST', path: '/webhooks/pr', headers, body }, secrets)
  }

  it('reads X-Hub-Signature-256', () => {
    expect(verifier.header).toBe('x-hub-signature-256')
  })

  it.each([
    ['pull_request', 'opened'],
    ['pull_request', 'synchronize'],
    ['pull_request', 'closed'],
    ['push', undefined],
    ['ping', undefined],
  ])('passes a real %s %s payload with the headers GitHub sends', (event, action) => {
    const body = githubPayload(event, action)
    const headers = githubHeaders(event, body, secret)
    expect(verifier.verify({ method: 'POST', path: '/webhooks/pr', headers, body }, [secret])).toEqual({
      ok: true,
      scheme: 'github-hmac-sha256',
    })
  })

  it('accepts an upper-case hex digest', () => {
    const body = githubPayload('ping')
    const upper = `sha256=${hmacHex(body, secret).toUpperCase()}`
    expect(verify(body, upper)).toEqual({ ok: true, scheme: 'github-hmac-sha256' })
  })

  it('refuses the legacy sha1= header and a bare digest as malformed', () => {
    const body = githubPayload('ping')
    expect(verify(body, `sha1=${hmacHex(body, secret).slice(0, 40)}`)).toEqual({
      ok: false,
      reason: 'malformed signature header',
    })
    expect(verify(body, hmacHex(body, secret))).toEqual({ ok: false, reason: 'malformed signature header' })
  })

  it('says "signature mismatch" for a well-formed wrong signature', () => {
    const body = githubPayload('ping')
    expect(verify(body, signGithub(body, 'wrong'))).toEqual({ ok: false, reason: 'signature mismatch' })
  })

  it('answers synchronously, so a flood of forgeries costs no promise per request', () => {
    const body = githubPayload('ping')
    expect(verify(body, signGithub(body, 'wrong'))).not.toBeInstanceOf(Promise)
  })
})
