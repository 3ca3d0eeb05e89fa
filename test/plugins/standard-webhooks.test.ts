/**
 * The Standard Webhooks signature (GitLab's signing tokens, and any sender that signs that way): the reference
 * implementation's published vector, the timestamp window, several signatures in one header, rotation, and
 * malformed headers, each a value and never a throw.
 */
import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { RawRequest, VerifyResult } from '../../src/core/types.js'
import { gitlabSource } from '../../src/plugins/sources/gitlab-token.js'
import { standardWebhooksSource } from '../../src/plugins/sources/standard-webhooks.js'
import { verifierContract } from '../../src/testing/verifier.js'

// The vector the `standardwebhooks` package's own tests sign (libraries/javascript/src/webhook.test.ts).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
}
const AT_VECTOR = () => VECTOR.timestamp * 1000

/** The `v1,<base64>` a sender computes, independently of the code under test. */
function sign(key: Uint8Array | string, id: string, timestamp: number | string, body: Uint8Array | string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`
}
const keyOf = (secret: string) => Buffer.from(secret.slice('whsec_'.length), 'base64')

function request(headers: Record<string, string>, body: string | Uint8Array = VECTOR.body): RawRequest {
  return { method: 'POST', path: '/webhooks/any', headers, body: typeof body === 'string' ? Buffer.from(body) : body }
}
const vectorHeaders = (signature = VECTOR.signature): Record<string, string> => ({
  'webhook-id': VECTOR.id, 'webhook-timestamp': String(VECTOR.timestamp), 'webhook-signature': signature,
})

// A plain route secret is the key's bytes; the contract's id and timestamp are the machine's now.
const contractNow = Math.floor(Date.now() / 1000)
verifierContract('standardWebhooksSource', () => standardWebhooksSource(), (body, secret) => sign(secret, 'msg_contract', contractNow, body), {
  headers: { 'webhook-id': 'msg_contract', 'webhook-timestamp': String(contractNow) },
})

/** A verify's answer, which this source gives at once: a Promise here would be a change these tests must see. */
function atOnce(result: VerifyResult | Promise<VerifyResult>): VerifyResult {
  if (result instanceof Promise) throw new Error('standardWebhooksSource.verify returned a Promise')
  return result
}

describe('standardWebhooksSource', () => {
  const source = standardWebhooksSource({ now: AT_VECTOR })
  const verify = (...args: Parameters<typeof source.verify>) => atOnce(source.verify(...args))

  it('passes the reference implementation\'s vector, with its whsec_ secret; webhook-id is the delivery id', () => {
    expect(verify(request(vectorHeaders()), [VECTOR.secret])).toEqual({ ok: true, scheme: 'standard-webhooks' })
    expect(sign(keyOf(VECTOR.secret), VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature)
    expect(source.deliveryId?.(vectorHeaders())).toBe(VECTOR.id)
  })

  it('fails another secret, another id, another timestamp within the window, another body', () => {
    expect(verify(request(vectorHeaders()), ['whsec_' + Buffer.alloc(32, 7).toString('base64')])).toEqual({ ok: false, reason: 'signature mismatch' })
    expect(verify(request({ ...vectorHeaders(), 'webhook-id': 'msg_other' }), [VECTOR.secret]).ok).toBe(false)
    expect(verify(request({ ...vectorHeaders(), 'webhook-timestamp': String(VECTOR.timestamp + 1) }), [VECTOR.secret]).ok).toBe(false)
    expect(verify(request(vectorHeaders(), '{"test": 2432232315}'), [VECTOR.secret]).ok).toBe(false)
  })

  it('refuses a timestamp more than 5 minutes old or ahead, and takes one at the edge', () => {
    const at = (offsetSeconds: number) => standardWebhooksSource({ now: () => (VECTOR.timestamp + offsetSeconds) * 1000 })
    expect(atOnce(at(300).verify(request(vectorHeaders()), [VECTOR.secret])).ok).toBe(true)
    expect(at(301).verify(request(vectorHeaders()), [VECTOR.secret])).toEqual({ ok: false, reason: expect.stringMatching(/more than 5 minutes old/) })
    expect(atOnce(at(-300).verify(request(vectorHeaders()), [VECTOR.secret])).ok).toBe(true)
    expect(at(-301).verify(request(vectorHeaders()), [VECTOR.secret])).toEqual({ ok: false, reason: expect.stringMatching(/more than 5 minutes ahead/) })
  })

  it('passes when one of several signatures matches (the sender rotating its key), whatever their order', () => {
    const other = 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc='
    for (const header of [`${other} ${VECTOR.signature}`, `${VECTOR.signature} ${other}`, `v1a,abc ${other} ${VECTOR.signature} v2,${other.slice(3)}`]) {
      expect(verify(request(vectorHeaders(header)), [VECTOR.secret]).ok).toBe(true)
    }
    expect(verify(request(vectorHeaders(`${other} v2,${VECTOR.signature.slice(3)}`)), [VECTOR.secret]).ok).toBe(false)
  })

  it('passes with any secret of the route (rotation on this side)', () => {
    const previous = 'whsec_' + Buffer.alloc(32, 1).toString('base64')
    expect(verify(request(vectorHeaders()), [previous, VECTOR.secret]).ok).toBe(true)
    expect(verify(request(vectorHeaders(sign(keyOf(previous), VECTOR.id, VECTOR.timestamp, VECTOR.body))), [previous, VECTOR.secret]).ok).toBe(true)
  })

  it('answers malformed headers with a failure, never a throw, and never echoes what was sent', () => {
    const malformed = [
      vectorHeaders(''), vectorHeaders('v1,'), vectorHeaders(VECTOR.signature.slice(0, 8)), vectorHeaders('v1,dawfeoifkpqwoekfpqoekf'),
      vectorHeaders('v2,' + VECTOR.signature.slice(3)), vectorHeaders(' '), vectorHeaders('v1,' + 'A'.repeat(10_000)),
      { ...vectorHeaders(), 'webhook-timestamp': 'hello' }, { ...vectorHeaders(), 'webhook-timestamp': '1614265330.5' },
      { ...vectorHeaders(), 'webhook-timestamp': '-1614265330' }, { ...vectorHeaders(), 'webhook-timestamp': '' },
      { 'webhook-signature': VECTOR.signature, 'webhook-timestamp': String(VECTOR.timestamp) }, { 'webhook-signature': VECTOR.signature, 'webhook-id': VECTOR.id },
    ]
    for (const headers of malformed) {
      const result = verify(request(headers), [VECTOR.secret])
      expect(result.ok).toBe(false)
      expect(JSON.stringify(result)).not.toContain(VECTOR.signature.slice(3, 20))
    }
    // A whsec_ secret that is not base64 verifies nothing (it is no key at all).
    expect(verify(request(vectorHeaders()), ['whsec_not base64!'])).toEqual({ ok: false, reason: 'no secret configured for this route' })
  })
})

describe('gitlabSource with a signing token', () => {
  const TOKEN = 'plain-gitlab-token'
  const gitlab = gitlabSource({ now: AT_VECTOR })
  const gitlabHeaders = (extra: Record<string, string>) => ({ 'x-gitlab-event': 'Merge Request Hook', 'idempotency-key': VECTOR.id, ...extra })

  it('verifies the signature when the route has a whsec_ secret, whatever the token says', () => {
    const signed = request(gitlabHeaders({ ...vectorHeaders(), 'x-gitlab-token': 'not the token' }))
    expect(gitlab.verify(signed, [TOKEN, VECTOR.secret])).toEqual({ ok: true, scheme: 'gitlab-signing-token' })
  })

  it('refuses a token-only request on such a route: a replay cannot pass by stripping the signature', () => {
    expect(gitlab.verify(request(gitlabHeaders({ 'x-gitlab-token': TOKEN })), [TOKEN, VECTOR.secret])).toEqual({ ok: false, reason: 'missing webhook-signature header' })
  })

  it('a route with only a token keeps checking the token, signature or not', () => {
    expect(gitlab.verify(request(gitlabHeaders({ ...vectorHeaders(), 'x-gitlab-token': TOKEN })), [TOKEN])).toEqual({ ok: true, scheme: 'gitlab-token' })
  })

  it('claims a signed GitLab request that carries no token, and no other Standard Webhooks sender', () => {
    expect(gitlab.claims?.(gitlabHeaders(vectorHeaders()))).toBe(true)
    expect(gitlab.claims?.(vectorHeaders())).toBe(false)
    expect(gitlab.deliveryId?.({ 'webhook-id': 'wh-1' })).toBe('wh-1')
  })

  it('a signed delivery\'s id is the signed webhook-id, never the unsigned Idempotency-Key; a key that differs is refused', () => {
    expect(gitlab.deliveryId?.(gitlabHeaders({ ...vectorHeaders(), 'idempotency-key': 'forged' }))).toBe(VECTOR.id)
    expect(gitlab.verify(request(gitlabHeaders({ ...vectorHeaders(), 'idempotency-key': 'forged' })), [VECTOR.secret]))
      .toEqual({ ok: false, reason: 'Idempotency-Key differs from the signed webhook-id' })
    expect(gitlab.deliveryId?.({ 'x-gitlab-event': 'Push Hook', 'idempotency-key': 'k-1', 'webhook-id': 'wh-1' })).toBe('k-1') // unsigned: as before
  })
})
