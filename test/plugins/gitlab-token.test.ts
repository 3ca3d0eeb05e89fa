import { describe, expect, it } from 'vitest'
import { gitlabSource } from '../../src/plugins/sources/gitlab-token.js'
import { verifierContract } from '../../src/testing/verifier.js'

// GitLab sends the shared token itself, whatever the body.
verifierContract('gitlabSource', gitlabSource, (_body, secret) => secret, { signsBody: false })

describe('gitlabSource', () => {
  const verifier = gitlabSource()
  const body = Buffer.from(JSON.stringify({ object_kind: 'merge_request', object_attributes: { iid: 1 } }))
  const verify = (token: string, secrets: readonly string[]) =>
    verifier.verify(
      {
        method: 'POST',
        path: '/webhooks/mr',
        headers: { 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': token },
        body,
      },
      secrets,
    )

  it('reads X-Gitlab-Token and passes the configured token', () => {
    expect(verifier.header).toBe('x-gitlab-token')
    expect(verify('glpat-token', ['glpat-token'])).toEqual({ ok: true, scheme: 'gitlab-token' })
  })

  it('fails a token that is a prefix or an extension of the secret', () => {
    expect(verify('glpat-toke', ['glpat-token'])).toEqual({ ok: false, reason: 'token mismatch' })
    expect(verify('glpat-token ', ['glpat-token'])).toEqual({ ok: false, reason: 'token mismatch' })
  })

  it('compares exactly: case and Unicode matter', () => {
    expect(verify('GLPAT-TOKEN', ['glpat-token'])).toEqual({ ok: false, reason: 'token mismatch' })
    expect(verify('tökén', ['tökén'])).toEqual({ ok: true, scheme: 'gitlab-token' })
    expect(verify('tokén', ['tökén'])).toEqual({ ok: false, reason: 'token mismatch' })
  })
})
