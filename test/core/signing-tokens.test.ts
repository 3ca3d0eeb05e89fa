/**
 * GitLab signing tokens and any Standard Webhooks sender, over real HTTP (issue 20, item 4): the signature
 * vectors a real gateway answers (valid, wrong secret, stale, future, several signatures, malformed), the replay
 * window (a copy within it is a duplicate by its `webhook-id`, one after it is refused), and rotation. The
 * timestamps are the gateway's clock's, which the test holds.
 */
import { createHmac, randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { testGateway, type TestGateway } from '../fixtures/gateway.js'

const SIGNING = 'whsec_' + Buffer.from('a 32-byte signing key, for tests').toString('base64')
const NEXT_SIGNING = 'whsec_' + Buffer.from('the next 32-byte key, after it...').toString('base64')
const TOKEN = 'gitlab-secret-token-0123456789'

let current: TestGateway | undefined
afterEach(async () => {
  await current?.gateway.close()
  current = undefined
})

async function start(secret: string | string[]) {
  current = await testGateway({ routes: { mr: { secret }, svix: { secret: SIGNING } } })
  const t = current
  const { url } = await t.gateway.listen({ port: 0 })
  const post = async (path: string, headers: Record<string, string>, body: string) => {
    const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  }
  return { t, post }
}

const MR = JSON.stringify({ object_kind: 'merge_request', event_type: 'merge_request', object_attributes: { iid: 7, action: 'open', title: 'Ünïcode “title”' } })

/** `v1,<base64>`, as the sender computes it, independently of the code under test. */
function signature(secret: string, id: string, seconds: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${seconds}.${body}`).digest('base64')}`
}

/** A delivery as GitLab sends it with a signing token (and, when given, the secret token too). */
function gitlab(t: TestGateway, options: { secret?: string; offsetSeconds?: number; id?: string; token?: string; sig?: (own: string) => string } = {}) {
  const id = options.id ?? randomUUID()
  const seconds = Math.floor(t.clock.now() / 1000) + (options.offsetSeconds ?? 0)
  const own = signature(options.secret ?? SIGNING, id, seconds, MR)
  return {
    'x-gitlab-event': 'Merge Request Hook', 'idempotency-key': id, 'webhook-id': id, 'webhook-timestamp': String(seconds),
    'webhook-signature': options.sig ? options.sig(own) : own, ...(options.token === undefined ? {} : { 'x-gitlab-token': options.token }),
  }
}

describe('GitLab signing tokens over HTTP', () => {
  it('the vectors: valid 202; wrong secret, stale, future and malformed 401; several signatures with one valid 202', async () => {
    const { t, post } = await start(SIGNING)
    const other = 'whsec_' + Buffer.alloc(32, 9).toString('base64')
    expect(await post('/webhooks/mr', gitlab(t), MR)).toMatchObject({ status: 202, body: { status: 'accepted', event: 'Merge Request Hook' } })
    expect((await post('/webhooks/mr', gitlab(t, { secret: other }), MR)).status).toBe(401)
    expect((await post('/webhooks/mr', gitlab(t, { offsetSeconds: -301 }), MR)).status).toBe(401)
    expect((await post('/webhooks/mr', gitlab(t, { offsetSeconds: 301 }), MR)).status).toBe(401)
    expect((await post('/webhooks/mr', gitlab(t, { offsetSeconds: -299 }), MR)).status).toBe(202) // a slow delivery, within the window
    const wrong = signature(other, 'x', 1, MR)
    expect((await post('/webhooks/mr', gitlab(t, { sig: (own) => `${wrong} ${own} v1a,ignored` }), MR)).status).toBe(202)
    expect((await post('/webhooks/mr', gitlab(t, { sig: () => `${wrong} ${wrong}` }), MR)).status).toBe(401)
    for (const sig of ['v1,', 'v1,not base64', 'garbage', ' ', (own: string) => own.replace('v1,', 'v2,')]) {
      expect((await post('/webhooks/mr', gitlab(t, { sig: typeof sig === 'string' ? () => sig : sig }), MR)).status).toBe(401)
    }
    expect(t.runs).toHaveLength(3)
    expect(t.log.text()).toMatch(/rejected request: invalid signature.*more than 5 minutes old/)
    expect(t.log.text()).not.toContain(SIGNING.slice(6))
  })

  it('a replay: within the window a duplicate by its webhook-id (runs once); after it, refused', async () => {
    const { t, post } = await start(SIGNING)
    const headers = gitlab(t)
    expect((await post('/webhooks/mr', headers, MR)).status).toBe(202)
    t.clock.advance(4 * 60_000)
    expect(await post('/webhooks/mr', headers, MR)).toMatchObject({ status: 200, body: { status: 'duplicate', delivery_id: headers['webhook-id'] } })
    t.clock.advance(2 * 60_000)
    expect(await post('/webhooks/mr', headers, MR)).toMatchObject({ status: 401 })
    // Stripping the signature to fall back on the secret token GitLab also sends does not pass either.
    const { 'webhook-signature': _stripped, ...unsigned } = { ...headers, 'x-gitlab-token': TOKEN }
    expect((await post('/webhooks/mr', unsigned, MR)).status).toBe(401)
    await t.answered(1)
    expect(t.runs).toHaveLength(1)
  })

  it('a replay with only Idempotency-Key changed (unsigned) is still a duplicate by the signed webhook-id; a key that disagrees is refused', async () => {
    const { t, post } = await start(SIGNING)
    const headers = gitlab(t)
    expect((await post('/webhooks/mr', headers, MR)).status).toBe(202)
    // The signature covers webhook-id, not Idempotency-Key: without the key, the signed id decides.
    const { 'idempotency-key': _key, ...withoutKey } = headers
    expect(await post('/webhooks/mr', withoutKey, MR)).toMatchObject({ status: 200, body: { status: 'duplicate', delivery_id: headers['webhook-id'] } })
    for (const forged of [randomUUID(), randomUUID(), headers['webhook-id'].toUpperCase()]) {
      const answer = await post('/webhooks/mr', { ...headers, 'idempotency-key': forged }, MR)
      expect(answer.status).toBe(401)
    }
    await t.answered(1)
    expect(t.runs).toHaveLength(1)
    expect(t.log.text()).toMatch(/Idempotency-Key.*webhook-id/)
  })

  it('rotation: either signing token of the route passes while GitLab moves from one to the next', async () => {
    const { t, post } = await start([SIGNING, NEXT_SIGNING, TOKEN])
    expect((await post('/webhooks/mr', gitlab(t), MR)).status).toBe(202)
    expect((await post('/webhooks/mr', gitlab(t, { secret: NEXT_SIGNING, token: TOKEN }), MR)).status).toBe(202)
    expect((await post('/webhooks/mr', { 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': TOKEN }, MR)).status).toBe(401)
  })

  it('a route with the secret token only goes on taking it, signed or not', async () => {
    const { t, post } = await start(TOKEN)
    expect((await post('/webhooks/mr', gitlab(t, { token: TOKEN }), MR)).status).toBe(202)
    expect((await post('/webhooks/mr', { 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': TOKEN, 'idempotency-key': randomUUID() }, MR)).status).toBe(202)
    expect((await post('/webhooks/mr', gitlab(t, { token: 'wrong' }), MR)).status).toBe(401)
  })
})

describe('any Standard Webhooks sender (the standard_webhooks source)', () => {
  it('verifies webhook-signature, takes webhook-id as the delivery id and the payload type as the event', async () => {
    const { t, post } = await start(TOKEN)
    const body = JSON.stringify({ type: 'invoice.paid', timestamp: '2026-01-01T00:00:00Z', data: { id: 'in_1' } })
    const id = 'msg_2a8b'
    const seconds = Math.floor(t.clock.now() / 1000)
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': signature(SIGNING, id, seconds, body) }
    expect(await post('/webhooks/svix', headers, body)).toMatchObject({ status: 202, body: { event: 'invoice.paid', delivery_id: id } })
    expect(await post('/webhooks/svix', headers, body)).toMatchObject({ status: 200, body: { status: 'duplicate' } })
    expect((await post('/webhooks/svix', { ...headers, 'webhook-signature': signature(NEXT_SIGNING, id, seconds, body) }, body)).status).toBe(401)
  })
})
