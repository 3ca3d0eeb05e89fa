/**
 * What requests leave in the log (issue 10, issue 13.3): unknown routes, bodies that are too large or not
 * JSON are logged, throttled like forged signatures and without anything the sender wrote; request lines
 * carry the client's address, from X-Forwarded-For only as trust_proxy says (as Express decides it).
 */
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/index.js'
import { clientAddressResolver } from '../../src/core/http/client-address.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'
import { SECRET, testGateway, type TestGateway } from '../fixtures/gateway.js'

const MARKER = 'sender-wrote-this-4d1c'
let current: TestGateway | undefined
afterEach(async () => {
  await current?.gateway.close()
  current = undefined
})

describe('request log lines', () => {
  it('unknown routes: one info line per 10 s window, the count of the others, never the name asked for', async () => {
    current = await testGateway()
    const { gateway, log, clock } = current
    for (let i = 0; i < 30; i++) {
      expect((await gateway.handle({ method: 'POST', path: `/webhooks/${MARKER}-${i}`, body: '{}' })).status).toBe(404)
    }
    const lines = () => log.lines.filter((l) => l.message.startsWith('unknown route'))
    expect(lines()).toEqual([{ level: 'info', message: 'unknown route: answered 404', fields: { client: undefined } }])
    clock.advance(10_001)
    await gateway.handle({ method: 'POST', path: `/webhooks/${MARKER}`, body: '{}' })
    expect(lines().at(-1)?.fields).toEqual({ client: undefined, suppressed: 29 })
    expect(log.text()).not.toContain(MARKER)
  })

  it('a store that fails every request: each answered 503, one error line per 10 s window with the count of the others', async () => {
    current = await testGateway()
    const { gateway, log, clock, state } = current
    state.queue.add = async () => {
      throw new Error('database or disk is full')
    }
    const body = githubPayload('pull_request', 'opened')
    const send = (id: string) => gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET, id), body })
    for (let i = 0; i < 20; i++) expect((await send(`full-${i}`)).status).toBe(503)
    const lines = () => log.lines.filter((l) => l.message.startsWith('cannot store the event'))
    expect(lines()).toHaveLength(1)
    expect(lines()[0]).toMatchObject({ level: 'error', fields: { delivery: 'full-0', reason: 'database or disk is full' } })
    clock.advance(10_001)
    await send('full-20')
    expect(lines()).toHaveLength(2)
    expect(lines()[1]?.fields).toMatchObject({ delivery: 'full-20', suppressed: 19 })
  })

  it('bodies over max_body_bytes and bodies that are not JSON: throttled, nothing of them logged', async () => {
    current = await testGateway({ extra: { max_body_bytes: 1000 } })
    const { gateway, log } = current
    const big = Buffer.from(`{"x":"${MARKER}${'a'.repeat(2000)}"}`)
    const bad = Buffer.from(`not json ${MARKER}`)
    for (let i = 0; i < 10; i++) {
      expect((await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', big, SECRET), body: big })).status).toBe(413)
      expect((await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', bad, SECRET), body: bad })).status).toBe(400)
    }
    expect(log.lines.filter((l) => l.level !== 'debug').map((l) => [l.message, l.fields])).toEqual([
      ['rejected request: body over max_body_bytes', { route: 'pr', client: undefined, max_body_bytes: 1000 }],
      ['rejected request: cannot parse body', { route: 'pr', reason: 'not a JSON object (or nested over 100 deep)', client: undefined }],
    ])
    expect(log.text()).not.toContain(MARKER)
  })

  it('uploads abandoned before their body ended: one line per window, and their bytes given back', async () => {
    current = await testGateway()
    const { port } = await current.gateway.listen({ port: 0 })
    const begun = `{"title":"${MARKER}`
    const sockets = Array.from({ length: 30 }, () => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`POST /webhooks/pr HTTP/1.1\r\nHost: x\r\nContent-Length: 10000\r\n\r\n${begun}`))
      return socket.on('error', () => {})
    })
    // Each upload is abandoned once the gateway holds the start of its body, however long that took to arrive.
    await expect.poll(() => current!.gateway.usage().unverifiedBytes).toBe(30 * Buffer.byteLength(begun))
    await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once('close', resolve).destroy())))
    const abandoned = () => current!.log.lines.filter((l) => l.message.startsWith('request abandoned'))
    await expect.poll(() => abandoned().length).toBe(1)
    await expect.poll(() => current!.gateway.usage().unverifiedBytes).toBe(0)
    expect(current.log.text()).not.toContain(MARKER)
  })

  it('request lines carry the client\'s address; X-Forwarded-For counts only through trusted proxies', async () => {
    const send = async (trust: unknown, forwarded: string | undefined) => {
      current = await testGateway({ extra: { trust_proxy: trust } })
      const { port } = await current.gateway.listen({ port: 0 })
      const body = githubPayload('pull_request', 'opened')
      const headers = { ...githubHeaders('pull_request', body, SECRET), ...(forwarded === undefined ? {} : { 'x-forwarded-for': forwarded }) }
      expect((await fetch(`http://127.0.0.1:${port}/webhooks/pr`, { method: 'POST', headers, body })).status).toBe(202)
      const accepted = current.log.lines.find((l) => l.message === 'accepted')
      await current.gateway.close()
      current = undefined
      return accepted?.fields['client']
    }
    expect(await send(false, '203.0.113.9')).toBe('127.0.0.1')
    expect(await send(true, '198.51.100.1, 203.0.113.9')).toBe('198.51.100.1')
    expect(await send(['127.0.0.1'], '198.51.100.1, 203.0.113.9')).toBe('203.0.113.9')
    expect(await send(['loopback', '203.0.113.0/24'], '198.51.100.1, 203.0.113.9')).toBe('198.51.100.1')
    expect(await send(['10.0.0.1'], '203.0.113.9')).toBe('127.0.0.1')
    expect(await send(true, undefined)).toBe('127.0.0.1')
  })

  it('an IPv4 client seen through a dual-stack socket (::ffff:) is logged as IPv4, through gateway.fetch too', async () => {
    for (const trust of [false, true, ['127.0.0.1']]) expect(clientAddressResolver(trust)('::ffff:127.0.0.1', {})).toBe('127.0.0.1')
    expect(clientAddressResolver(true)('::ffff:10.0.0.1', { 'x-forwarded-for': '::ffff:198.51.100.1' })).toBe('198.51.100.1')
    expect(clientAddressResolver(false)('2001:db8::1', {})).toBe('2001:db8::1')
    current = await testGateway()
    const body = githubPayload('pull_request', 'opened')
    const request = new Request('http://gateway.example/webhooks/pr', { method: 'POST', headers: githubHeaders('pull_request', body, SECRET), body })
    expect((await current.gateway.fetch(request, { remoteAddress: '::ffff:192.0.2.7' })).status).toBe(202)
    expect(current.log.lines.find((l) => l.message === 'accepted')?.fields['client']).toBe('192.0.2.7')
  })

  it('a trusted hop that writes no address is not believed; trust_proxy entries are checked at startup', () => {
    expect(clientAddressResolver(true)('127.0.0.1', { 'x-forwarded-for': '\u001b[2J, 10.0.0.1' })).toBe('127.0.0.1')
    expect(() => parseConfig({ platforms: { webhook: { extra: { secret: 's3cret', trust_proxy: ['10.0.0.0/8', 'proxy.example'] } } } }, { env: {} }))
      .toThrow("platforms.webhook.extra.trust_proxy: invalid IP address: proxy.example; expected addresses or subnets")
  })
})
