// The shipped mock on a real port, as users run it: URLs, all three services, throttling, close().
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RateLimitedError, createMarketClient } from '../../src/sdk/index.js'
import { createMockMarketRouter, startMockMarketServer, type MockMarketServer } from '../../src/sdk/mock/index.js'

let mock: MockMarketServer
beforeAll(async () => {
  // tickMs 0: only the tests' tick() moves the books (the default timer moved one between a reset and the read
  // that checks it on a loaded machine).
  mock = await startMockMarketServer({ port: 0, tickMs: 0 })
})
afterAll(() => mock.close())

describe('startMockMarketServer', () => {
  it('serves the three services under one local port', async () => {
    expect(mock.gammaUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/gamma$/)
    const pm = createMarketClient(mock)
    const m = pm.market(await pm.markets.bySlug('will-2-fed-rate-cuts-happen-in-2025'))
    expect((await m.yes.book()).bids[0]?.price).toBe(0.64)
    expect(await m.openInterest()).toBeGreaterThan(0)
    expect((await pm.midpoints([m.yes.id])).get(m.yes.id)).toBe(0.645)
  })

  it('throttles on demand, as a 200 with an error body or a 429', async () => {
    const pm = createMarketClient({ ...mock, retry: false })
    mock.throttle(1)
    await expect(pm.tags.list()).rejects.toMatchObject({ status: 200, code: 'ERR_MARKET_RATE_LIMITED' })
    mock.throttle(1, { status: 429, retryAfterSeconds: 2 })
    const err = await pm.tags.list().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RateLimitedError)
    expect((err as RateLimitedError).retryAfterMs).toBe(2000)
    await expect(pm.tags.list()).resolves.toHaveLength(3)
  })

  it('ignores the wrong cursor parameter on keyset lists, as the real service does', async () => {
    const route = createMockMarketRouter()
    const first = await (await route(new Request('https://gamma-api.polymarket.com/markets/keyset?limit=2')))!.json()
    const cursor = (first as { next_cursor: string }).next_cursor
    const wrong = await (await route(new Request(`https://gamma-api.polymarket.com/markets/keyset?limit=2&cursor=${cursor}`)))!.json()
    expect(wrong).toEqual(first)
    expect(await route(new Request('https://example.com/markets'))).toBeUndefined()
  })

  it('resets: pending throttles dropped, the moved market back where it started', async () => {
    const pm = createMarketClient({ ...mock, retry: false })
    const m = pm.market(await pm.markets.bySlug('will-2-fed-rate-cuts-happen-in-2025'))
    const start = await m.yes.book()
    mock.throttle(3)
    mock.reset()
    await expect(pm.tags.list()).resolves.toHaveLength(3)
    // The channel moves only subscribed tokens: subscribe, move, and the REST book follows the stream's.
    const stream = pm.watch(m.yes)[Symbol.asyncIterator]()
    await stream.next()
    mock.tick(2)
    await stream.next()
    await stream.next()
    expect((await m.yes.book()).bids).not.toEqual(start.bids)
    mock.reset()
    expect((await m.yes.book()).bids).toEqual(start.bids)
    await stream.return?.()
  })

  it('closes', async () => {
    const other = await startMockMarketServer()
    await other.close()
    await expect(fetch(`${other.gammaUrl}/tags`)).rejects.toThrow()
  })
})
