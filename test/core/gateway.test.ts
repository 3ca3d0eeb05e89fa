/**
 * The composition root: plugin slots (one vs many), isolation between gateways, graceful close.
 */
import { mkdtemp, stat } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, createGateway, definePlugin, silentLogger, type RateLimiter, type Route } from '../../src/index.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'
import { SECRET, testGateway } from '../fixtures/gateway.js'

const body = githubPayload('pull_request', 'opened')
const request = (id: string, path = '/webhooks/pr') => ({ method: 'POST', path, headers: githubHeaders('pull_request', body, SECRET, id), body })

describe('createGateway', () => {
  it('a plugin filling a one-implementation slot replaces the built-in', async () => {
    const hits: string[] = []
    const limiter: RateLimiter = { hit: (key) => (hits.push(key), { ok: false, retryAfterSeconds: 9 }) }
    const { gateway } = await testGateway({ plugins: [definePlugin({ name: 'mine', setup: () => ({ name: 'mine', rateLimiter: limiter }) })] })
    const refused = await gateway.handle(request('a'))
    expect([refused.status, refused.headers['retry-after']]).toEqual([429, '9'])
    expect(hits).toEqual(['pr'])
    await gateway.close()
  })

  it('event filters are added in order after the events list; any refusal answers ignored', async () => {
    const seen: string[] = []
    const { gateway, runs } = await testGateway({
      plugins: [
        { name: 'first', eventFilters: [{ name: 'first', accepts: (e) => (seen.push(`first:${e.deliveryId}`), true) }] },
        { name: 'no-b', eventFilters: [{ name: 'no-b', accepts: (e) => (seen.push(`second:${e.deliveryId}`), e.deliveryId !== 'b') }] },
      ],
    })
    expect((await gateway.handle(request('a'))).status).toBe(202)
    const refused = await gateway.handle(request('b'))
    expect([refused.status, JSON.parse(refused.body)]).toEqual([200, { status: 'ignored', event: 'pull_request', reason: 'the event filter "no-b" declined it' }])
    expect(seen).toEqual(['first:a', 'second:a', 'first:b', 'second:b'])
    await expect.poll(() => runs.length).toBe(1)
    await gateway.close()
  })

  it('two gateways in one process share nothing: a refuse-all filter in one leaves the other alone', async () => {
    // With one container for both (tsyringe's global one), the second gateway would resolve the first's filter.
    const refusing = await testGateway({ plugins: [{ name: 'refuse-all', eventFilters: [{ name: 'refuse-all', accepts: () => false }] }] })
    const open = await testGateway()
    expect(JSON.parse((await refusing.gateway.handle(request('same'))).body)).toMatchObject({ status: 'ignored' })
    expect((await open.gateway.handle(request('same'))).status).toBe(202)
    await Promise.all([refusing.gateway.close(), open.gateway.close()])
  })

  it('plugins of one gateway share a resource (created once, disposed on close); another gateway gets its own', async () => {
    const made: Array<{ id: number; closed: boolean }> = []
    const open = () => {
      const resource = { id: made.length + 1, closed: false }
      made.push(resource)
      return resource
    }
    const seen: Array<[string, number]> = []
    const user = (name: string) => definePlugin({
      name,
      setup: (_options, ctx) => {
        seen.push([name, ctx.resources.get('db', open, (db) => void (db.closed = true)).id])
        return { name }
      },
    })
    const first = await testGateway({ plugins: [user('queue'), user('store')] })
    const second = await testGateway({ plugins: [user('queue')] })
    expect(seen).toEqual([['queue', 1], ['store', 1], ['queue', 2]])
    await first.gateway.close()
    expect(made.map((m) => m.closed)).toEqual([true, false])
    await second.gateway.close()
    expect(made.map((m) => m.closed)).toEqual([true, true])
  })

  it('close() refuses new webhooks and lets a running agent run finish and deliver', async () => {
    let release: () => void = () => {}
    const started = new Promise<void>((r) => (release = r))
    let finish: () => void = () => {}
    const { gateway, answers } = await testGateway({
      agent: async () => {
        release()
        await new Promise<void>((r) => (finish = r))
        return { ok: true, text: 'late but delivered' }
      },
    })
    const { url } = await gateway.listen({ port: 0 })
    expect((await gateway.handle(request('slow'))).status).toBe(202)
    await started
    const closing = gateway.close()
    const refused = await gateway.handle(request('after'))
    expect([refused.status, JSON.parse(refused.body)]).toEqual([503, { error: 'Shutting down' }])
    // Through the grace period the listener stays open: a webhook gets the 503, not a refused connection.
    const overHttp = await fetch(`${url}/webhooks/pr`, { method: 'POST', body: '{}' })
    expect([overHttp.status, overHttp.headers.get('retry-after'), await overHttp.json()]).toEqual([503, '30', { error: 'Shutting down' }])
    // A load balancer's readiness check sees the drain and stops sending; liveness stays fine.
    const ready = await fetch(`${url}/ready`)
    expect([ready.status, await ready.json()]).toEqual([503, { status: 'unavailable', reason: 'shutting down' }])
    expect((await fetch(`${url}/health`)).status).toBe(200)
    finish()
    await closing
    expect(answers.map((a) => a.text)).toEqual(['late but delivered'])
    await expect(fetch(`${url}/health`)).rejects.toThrow() // after the grace period the server is gone
  })

  it('a second close() waits for the first, instead of returning while the grace period runs', async () => {
    let finish: () => void = () => {}
    const { gateway, runs } = await testGateway({ agent: () => new Promise((resolve) => (finish = () => resolve({ ok: true, text: 'x' }))) })
    expect((await gateway.handle(request('slow'))).status).toBe(202)
    await expect.poll(() => runs.length).toBe(1)
    const order: string[] = []
    const first = gateway.close().then(() => order.push('first'))
    const second = gateway.close().then(() => order.push('second'))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(order).toEqual([])
    finish()
    await Promise.all([first, second])
    expect(order.sort()).toEqual(['first', 'second'])
  })

  it('close() aborts runs still going when the grace period ends', async () => {
    let aborted = false
    let started = false
    const { gateway } = await testGateway({
      extra: { shutdown_grace_seconds: 0 },
      agent: () => new Promise(() => {}),
      plugins: [{
        name: 'abortable',
        agentRunner: {
          name: 'recording',
          run: (_input, { signal }) => new Promise((resolve) => {
            started = true
            signal.addEventListener('abort', () => {
              aborted = true
              resolve({ ok: false, reason: 'aborted' })
            })
          }),
        },
      }],
    })
    expect((await gateway.handle(request('stuck'))).status).toBe(202)
    await expect.poll(() => started).toBe(true)
    await gateway.close()
    await expect.poll(() => aborted).toBe(true)
  })

  it('builds from a plain object config with the built-in plugins only: durable (SQLite) by default, beside baseDir', async () => {
    const baseDir = await mkdtemp(join(tmpdir(), 'hookpilot-plain-'))
    const gateway = await createGateway(
      { log_level: 'error', platforms: { webhook: { extra: { host: '127.0.0.1', routes: { pr: { secret: SECRET } } } } } },
      [definePlugin({ name: 'quiet', setup: () => ({ name: 'quiet', logger: silentLogger }) })],
      { baseDir },
    )
    const res = await gateway.handle(request('plain'))
    expect(JSON.parse(res.body)).toMatchObject({ status: 'accepted', route: 'pr' })
    await gateway.close()
    expect((await stat(join(baseDir, '.hookpilot', 'state.db'))).isFile()).toBe(true)
  })

  it('refuses to listen off loopback while a route has INSECURE_NO_AUTH, even when the config host is loopback', async () => {
    const { gateway } = await testGateway({ routes: { dev: { secret: 'INSECURE_NO_AUTH' } } })
    const err = await gateway.listen({ host: '0.0.0.0', port: 0 }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).issues).toEqual([{
      path: 'platforms.webhook.extra.routes.dev.secret',
      message: expect.stringMatching(/INSECURE_NO_AUTH .* refused on host "0\.0\.0\.0".*--host/),
    }])
    // nothing was bound, so the same gateway can still listen where it may
    expect((await gateway.listen({ host: '127.0.0.1', port: 0 })).port).toBeGreaterThan(0)
    await gateway.close()
  })

  it('INSECURE_NO_AUTH is decided by the socket a request arrived on: an embedder serving 0.0.0.0 gets 401 from the network, 202 on loopback', async () => {
    const { gateway, runs } = await testGateway()
    const open: Route = {
      name: 'dev', secrets: ['INSECURE_NO_AUTH'], events: [], actions: [], prompt: undefined, skills: [], deliver: 'log',
      deliverExtra: {}, silentOutputs: [], rateLimit: 30, source: 'dynamic', description: undefined,
    }
    gateway.routes.setDynamic([open])
    // Embedded: the gateway's own listen() never ran, so only the per-request check stands between the network and the route.
    const server = createServer(gateway.handler)
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve))
    const { port } = server.address() as AddressInfo
    const external = Object.values(networkInterfaces()).flat().find((i) => i?.family === 'IPv4' && !i.internal)?.address
    if (external === undefined) throw new Error('this test needs a non-loopback IPv4 address on the machine (ip addr)')
    const post = (host: string) => fetch(`http://${host}:${port}/webhooks/dev`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' })
    const fromNetwork = await post(external)
    expect([fromNetwork.status, await fromNetwork.json()]).toEqual([401, { error: 'Invalid signature' }])
    expect((await post('127.0.0.1')).status).toBe(202)
    await expect.poll(() => runs.length).toBe(1)
    await new Promise((resolve) => server.close(resolve))
    await gateway.close()
  })
})
