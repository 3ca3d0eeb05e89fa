import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { http, HttpResponse, delay, passthrough } from 'msw'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  MarketError,
  MarketHttpError,
  MarketTimeoutError,
  RateLimitedError,
  ShapeMismatchError,
  createMarketClient,
} from '../../src/sdk/index.js'
import { backoffDelay } from '../../src/util/backoff.js'
import { retryPolicy, sleep } from '../../src/sdk/retry.js'
import { CLOB, DATA, GAMMA, testClient, useMarketMock } from './helpers/msw.js'

const { server, router, requests } = useMarketMock()
const TOKEN = '10051672510051672510051672510051672510051672510051672510051672510051672510051'

afterEach(() => {
  vi.useRealTimers()
})

describe('retries', () => {
  it('retries the throttled 200 answer and then succeeds', async () => {
    router.throttle(2)
    const { pm, sleep } = testClient()
    await expect(pm.token(TOKEN).midpoint()).resolves.toBe(0.645)
    expect(requests).toHaveLength(3)
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([500, 1000])
  })

  it('gives up with RateLimitedError once retries run out', async () => {
    router.throttle(10)
    const { pm } = testClient({ retry: { limit: 2, sleep: async () => {} } })
    const err = await pm.trades.list().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RateLimitedError)
    expect(err).toMatchObject({ status: 200, serviceMessage: 'Too Many Requests', code: 'ERR_MARKET_RATE_LIMITED' })
    expect(requests).toHaveLength(3)
  })

  it("honours a 429's Retry-After", async () => {
    router.throttle(1, { status: 429, retryAfterSeconds: 7 })
    const { pm, sleep } = testClient()
    await pm.tags.list()
    expect(sleep).toHaveBeenCalledOnce()
    expect(sleep.mock.calls[0]?.[0]).toBe(7000)
  })

  it("honours a 503's Retry-After too", async () => {
    let calls = 0
    const busy = () => new HttpResponse('busy', { status: 503, headers: { 'retry-after': '4' } })
    server.use(http.get(`${GAMMA}/tags`, () => (++calls === 1 ? busy() : undefined)))
    const { pm, sleep } = testClient()
    await expect(pm.tags.list()).resolves.toHaveLength(3)
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([4000])
  })

  it('retries 5xx and network errors but not 4xx', async () => {
    let calls = 0
    server.use(
      http.get(`${DATA}/oi`, () => (++calls === 1 ? new HttpResponse('bad gateway', { status: 502 }) : undefined)),
      http.get(`${GAMMA}/tags`, () => (++calls === 3 ? HttpResponse.error() : undefined)),
    )
    const { pm, sleep } = testClient()
    await expect(pm.openInterest('0x01')).resolves.toEqual([])
    await expect(pm.tags.list()).resolves.toHaveLength(3)
    expect(sleep).toHaveBeenCalledTimes(2)
    await expect(pm.token('12345').price()).rejects.toMatchObject({ status: 400 })
    expect(sleep).toHaveBeenCalledTimes(2)
  })

  it('waits the backoff with the default sleep (fake timers) and stops waiting on abort', async () => {
    vi.useFakeTimers()
    const done = vi.fn()
    void sleep(2000, undefined).then(done)
    await vi.advanceTimersByTimeAsync(1999)
    expect(done).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(done).toHaveBeenCalledOnce()
    const controller = new AbortController()
    const waiting = sleep(60_000, controller.signal)
    controller.abort(new Error('stop'))
    await expect(waiting).rejects.toThrow('stop')
  })

  it("backs off by the client's policy: exponential, Retry-After first, both capped", () => {
    const policy = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1000 })
    expect([1, 2, 3, 5].map((n) => backoffDelay(policy, n))).toEqual([100, 200, 400, 1000])
    expect(backoffDelay(policy, 1, 700)).toBe(700)
    expect(backoffDelay(policy, 1, 5000)).toBe(1000)
    expect(retryPolicy(false).limit).toBe(0)
  })
})

describe('errors', () => {
  it('names the endpoint and the path of a shape mismatch', async () => {
    server.use(http.get(`${CLOB}/book`, () => HttpResponse.json({ asset_id: TOKEN, bids: [{ price: '0.4' }] })))
    const { pm } = testClient()
    const err = await pm.token(TOKEN).book().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ShapeMismatchError)
    const shape = err as ShapeMismatchError
    expect(shape.endpoint).toBe('clob GET /book')
    expect(shape.issues[0]?.path).toBe('bids.0.size')
    expect(shape.message).toMatch(/clob GET \/book[\s\S]*bids\.0\.size/)
    expect(shape.cause).toBeDefined()
  })

  it('refuses a price that is not a number instead of turning it into NaN or 0', async () => {
    server.use(
      http.get(`${CLOB}/book`, () => HttpResponse.json({ asset_id: TOKEN, bids: [{ price: 'n/a', size: '10' }], asks: null })),
      http.get(`${CLOB}/midpoint`, () => HttpResponse.json({ mid: '' })),
      http.get(`${DATA}/trades`, () => HttpResponse.json([{ side: 'BUY', size: '12.5', price: 'abc', timestamp: 1 }])),
    )
    const { pm } = testClient()
    await expect(pm.token(TOKEN).book()).rejects.toMatchObject({ code: 'ERR_MARKET_SHAPE', issues: [{ path: 'bids.0.price' }] })
    await expect(pm.token(TOKEN).midpoint()).rejects.toMatchObject({ code: 'ERR_MARKET_SHAPE', issues: [{ path: 'mid' }] })
    await expect(pm.trades.list()).rejects.toMatchObject({ code: 'ERR_MARKET_SHAPE', issues: [{ path: '0.price' }] })
  })

  it('reports a malformed double-encoded field at its path', async () => {
    server.use(http.get(`${GAMMA}/markets/slug/:slug`, () => HttpResponse.json({ id: '1', outcomes: '[Yes' })))
    const { pm } = testClient()
    await expect(pm.markets.bySlug('x')).rejects.toMatchObject({ code: 'ERR_MARKET_SHAPE', issues: [{ path: 'outcomes' }] })
  })

  it('turns another 200 with an error body into MarketHttpError, without retrying it', async () => {
    server.use(http.get(`${DATA}/trades`, () => HttpResponse.json({ error: 'invalid user address' })))
    const { pm, sleep } = testClient()
    const err = await pm.trades.where({ user: 'nobody' }).list().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MarketHttpError)
    expect(err).toMatchObject({ status: 200, serviceMessage: 'invalid user address', url: expect.stringContaining('user=nobody') })
    expect(sleep).not.toHaveBeenCalled()
  })

  it('wraps a non-JSON answer (an HTML 403 page) without leaking ky errors', async () => {
    server.use(http.get(`${GAMMA}/tags`, () => new HttpResponse('<html>Forbidden</html>', { status: 403 })))
    const { pm } = testClient()
    const err = await pm.tags.list().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MarketHttpError)
    expect(err).toMatchObject({ status: 403, url: `${GAMMA}/tags?offset=0` })
  })

  it('times out with MarketTimeoutError after its retries', async () => {
    server.use(http.get(`${GAMMA}/tags`, async () => delay('infinite')))
    const { pm, sleep } = testClient({ timeout: 20, retry: { limit: 1, sleep: async () => {} } })
    await expect(pm.tags.list()).rejects.toBeInstanceOf(MarketTimeoutError)
    // `retry` above replaces testClient's recording sleep, so this only says nothing else slept...
    expect(sleep).not.toHaveBeenCalled()
    // ...and this is what shows the timeout was retried once.
    expect(requests).toHaveLength(2)
  })

  it('times out a server that sends its headers and then stalls in the body', async () => {
    let requestsSeen = 0
    const stall = createServer((_req, res) => {
      requestsSeen++
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('[{"id": "1", "label": "half a bo')
    })
    await new Promise<void>((resolve) => stall.listen(0, '127.0.0.1', resolve))
    const { port } = stall.address() as AddressInfo
    // This file intercepts fetch with msw: let this request reach the real socket.
    server.use(http.all(`http://127.0.0.1:${port}/*`, () => passthrough()))
    try {
      // Long enough for the headers on a busy machine (a second, not a margin a loaded machine overruns): it is
      // the body that must be cut off.
      const pm = createMarketClient({ gammaUrl: `http://127.0.0.1:${port}`, timeout: 1_000, retry: { limit: 1, sleep: async () => {} } })
      const err = await pm.tags.list().catch((e: unknown) => e)
      expect(err).toBeInstanceOf(MarketTimeoutError)
      expect(err).toMatchObject({ message: expect.stringContaining('within 1000 ms'), url: expect.stringContaining(`:${port}/tags`) })
      // A timed-out attempt is retried like one whose headers never came.
      await vi.waitFor(() => expect(requestsSeen).toBe(2))
    } finally {
      stall.closeAllConnections()
      await new Promise((resolve) => stall.close(resolve))
    }
  })

  it('rejects with the signal reason when aborted, also while waiting to retry', async () => {
    server.use(http.get(`${GAMMA}/tags`, async () => delay('infinite')))
    const { pm } = testClient()
    const controller = new AbortController()
    const pending = pm.tags.list({ signal: controller.signal })
    controller.abort(new Error('user gave up'))
    await expect(pending).rejects.toThrow('user gave up')

    router.throttle(5)
    let sleeping!: () => void
    const asleep = new Promise<void>((resolve) => (sleeping = resolve))
    const pm2 = createMarketClient({ retry: { baseDelayMs: 60_000, sleep: (ms, s) => (sleeping(), sleep(ms, s)) } })
    const c2 = new AbortController()
    const waiting = pm2.trades.iterate({ signal: c2.signal }).next()
    await asleep
    c2.abort(new Error('stop'))
    await expect(waiting).rejects.toThrow('stop')
  })

  it('takes a signal on every terminal and every single-object or batch call', async () => {
    const { pm } = testClient()
    const m = await pm.markets.bySlug('will-1-fed-rate-cut-happen-in-2025')
    const market = pm.market(m)
    const reason = new Error('aborted by the caller')
    const signal = AbortSignal.abort(reason)
    const calls: Record<string, (o: { signal: AbortSignal }) => Promise<unknown>> = {
      'markets.list': (o) => pm.markets.list(o),
      'markets.page': (o) => pm.markets.page(o),
      'markets.byId': (o) => pm.markets.byId('516724', o),
      'markets.list with a tag lookup': (o) => pm.markets.where({ tag: 'crypto' }).list(o),
      'events.toArray': (o) => pm.events.toArray({ max: 5, ...o }),
      'events.bySlug': (o) => pm.events.bySlug('x', o),
      'tags.bySlug': (o) => pm.tags.bySlug('crypto', o),
      'search.list': (o) => pm.search('x').list(o),
      'clobMarkets.page': (o) => pm.clobMarkets.page(o),
      'trades.iterate': (o) => pm.trades.iterate(o).next(),
      'token.price': (o) => market.yes.price('buy', o),
      'token.midpoint': (o) => market.yes.midpoint(o),
      'token.spread': (o) => market.yes.spread(o),
      'token.book': (o) => market.yes.book(o),
      'market.history': (o) => market.history({ interval: '1d' }, o),
      'market.openInterest': (o) => market.openInterest(o),
      books: (o) => pm.books([market.yes.id], o),
      prices: (o) => pm.prices([market.yes.id], o),
      midpoints: (o) => pm.midpoints([market.yes.id], o),
      spreads: (o) => pm.spreads([market.yes.id], o),
      openInterest: (o) => pm.openInterest(m.conditionId, o),
    }
    const before = requests.length
    for (const [name, call] of Object.entries(calls)) {
      await expect(call({ signal }), name).rejects.toBe(reason)
    }
    expect(requests).toHaveLength(before)
  })

  it('brands errors so MarketError.is works across package copies', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('hookpilot.MarketError')]: true, code: 'ERR_MARKET_HTTP' })
    expect(MarketError.is(foreign)).toBe(true)
    expect(MarketError.is(foreign, 'ERR_MARKET_NOT_FOUND')).toBe(false)
    expect(MarketError.is(new Error('x'))).toBe(false)
  })
})

describe('options', () => {
  it('bounds every fan-out by `concurrency`, not only batch chunks', async () => {
    let inFlight = 0
    let peak = 0
    server.use(
      http.get(`${CLOB}/prices-history`, async () => {
        peak = Math.max(peak, ++inFlight)
        await new Promise((r) => setTimeout(r, 5))
        inFlight--
        return HttpResponse.json({ history: [{ t: 1, p: 0.5 }] })
      }),
    )
    const { pm } = testClient({ concurrency: 2 })
    const markets = await pm.markets.where({ closed: false }).toArray({ max: 100 })
    const binary = markets.map((m) => pm.market(m)).filter((h) => h.hasOrderBook && h.market.outcomes.length === 2)
    expect(binary.length).toBeGreaterThan(4)
    const histories = await Promise.all(binary.map((h) => h.history({ interval: '1d' })))
    expect(histories.every((h) => h.length === 1)).toBe(true)
    expect(peak).toBe(2)
  })

  it('sends a User-Agent, uses a given fetch, read at call time', async () => {
    const calls: string[] = []
    const pm = createMarketClient({
      userAgent: 'my-bot/1.0',
      fetch: (input, init) => {
        calls.push(input instanceof Request ? input.url : String(input))
        return globalThis.fetch(input, init)
      },
    })
    await pm.tags.list()
    expect(calls).toEqual([`${GAMMA}/tags?offset=0`])
    expect(requests[0]?.headers.get('user-agent')).toBe('my-bot/1.0')
    await createMarketClient().tags.list()
    expect(requests[1]?.headers.get('user-agent')).toMatch(/^hookpilot-market-sdk\//)
  })

  it('uses custom base URLs, with a path prefix', async () => {
    const pm = createMarketClient({ gammaUrl: 'http://localhost:1/', clobUrl: undefined })
    server.use(http.get('http://localhost:1/tags', () => HttpResponse.json([{ id: 9, label: 'Nine', slug: 'nine' }])))
    await expect(pm.tags.list()).resolves.toMatchObject([{ id: '9', slug: 'nine' }])
    // A prefix is kept (trailing slash or not), and `clobUrl: undefined` falls back to the real service.
    const prefixed = createMarketClient({ gammaUrl: 'http://localhost:1/api/gamma/', clobUrl: undefined })
    server.use(http.get('http://localhost:1/api/gamma/tags/slug/:slug', () => HttpResponse.json({ id: '3', slug: 'x' })))
    await expect(prefixed.tags.bySlug('x')).resolves.toMatchObject({ id: '3' })
    await expect(prefixed.token(TOKEN).midpoint()).resolves.toBe(0.645)
    expect(requests.map((r) => r.url)).toContain(`${CLOB}/midpoint?token_id=${TOKEN}`)
  })
})
