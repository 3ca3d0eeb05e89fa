// The request budget (issue 23, item 2): a client stays under the published limits of a mock that enforces them,
// learns from throttles when the limits are lower than it thinks, and a bucket never exceeds its limit in a window.
import { describe, expect, it } from 'vitest'
import { createMarketClient, type MarketClientOptions } from '../../src/sdk/index.js'
import { createRequestBudget } from '../../src/sdk/budget/request-budget.js'
import { TokenBucket } from '../../src/sdk/budget/token-bucket.js'
import { createMockMarketRouter, type MockMarketRouter } from '../../src/sdk/mock/router.js'
import type { MockRateLimits } from '../../src/sdk/mock/limiter.js'

const TOKEN = '10051672510051672510051672510051672510051672510051672510051672510051672510051'

/**
 * A fake clock shared by the mock and the client: time moves only when someone sleeps, so thousands of calls over
 * a minute of the services' time take a second or two of ours. Sleepers wake one at a time, earliest first, each
 * after the work in flight has had its turn (a `setImmediate`), with the clock set to the end of its sleep.
 */
function fakeClock() {
  let t = Date.UTC(2026, 10, 22, 12)
  const sleepers: { until: number; wake: () => void }[] = []
  let scheduled = false
  const fire = (): void => {
    scheduled = false
    sleepers.sort((a, b) => a.until - b.until)
    const next = sleepers.shift()
    if (next === undefined) return
    t = Math.max(t, next.until)
    next.wake()
    if (sleepers.length > 0) schedule()
  }
  const schedule = (): void => {
    if (!scheduled) setImmediate(fire)
    scheduled = true
  }
  return {
    now: () => t,
    sleep: (ms: number) =>
      new Promise<void>((wake) => {
        sleepers.push({ until: t + ms, wake })
        schedule()
      }),
  }
}

/** The mock's fetch-style router, enforcing `rateLimits` on the fake clock; no msw, so 2,000 calls stay cheap. */
function mockWith(clock: ReturnType<typeof fakeClock>, rateLimits: MockRateLimits | true) {
  return createMockMarketRouter({ now: clock.now, rateLimits })
}

/** A client over the mock counting the throttled answers it gets (429s and throttled 200s). */
function countingClient(route: MockMarketRouter, clock: ReturnType<typeof fakeClock>, options: MarketClientOptions) {
  const seen = { throttled: 0, requests: 0 }
  const pm = createMarketClient({
    concurrency: 8,
    retry: { sleep: clock.sleep },
    ...options,
    fetch: async (input, init) => {
      const response = (await route(new Request(input, init))) ?? new Response('unrouted', { status: 599 })
      seen.requests++
      if (response.status === 429 || (await response.clone().text()).includes('Too Many Requests')) seen.throttled++
      return response
    },
  })
  return { pm, seen }
}

/** 2,000 calls over three services: 400 to `/trades` (200 per 10 s), 400 to `/markets` (300), 1,200 to `/book`. */
function walk(pm: ReturnType<typeof createMarketClient>) {
  return Promise.allSettled(
    Array.from({ length: 2_000 }, (_, i) =>
      i % 5 === 0 ? pm.trades.limit(5).list() : i % 5 === 1 ? pm.markets.limit(5).list() : pm.token(TOKEN).book(),
    ),
  )
}

describe('the request budget against a mock that enforces the published limits', () => {
  it('2,000 calls through one client meet no throttle with the budget on', { timeout: 60_000 }, async () => {
    const clock = fakeClock()
    const route = mockWith(clock, true)
    const { pm, seen } = countingClient(route, clock, { rateLimit: { now: clock.now, sleep: clock.sleep } })
    const started = clock.now()
    const results = await walk(pm)
    expect(results.filter((r) => r.status === 'rejected')).toEqual([])
    expect(seen).toEqual({ throttled: 0, requests: 2_000 })
    // 400 `/trades` calls at 90 % of 200 per 10 s take about 22 s of the services' time: the budget did the pacing.
    expect(clock.now() - started).toBeGreaterThan(18_000)
    expect(clock.now() - started).toBeLessThan(30_000)
  })

  it('the same calls with rateLimit: false are throttled', async () => {
    const clock = fakeClock()
    const route = mockWith(clock, true)
    const { pm, seen } = countingClient(route, clock, { rateLimit: false, retry: false })
    const results = await walk(pm)
    // 400 calls against 200 allowed on `/trades`, 400 against 300 on `/markets`.
    expect(seen.throttled).toBe(200 + 100)
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(300)
  })

  it('learns when the service allows less than the budget thinks, and every call still succeeds', async () => {
    const clock = fakeClock()
    const route = mockWith(clock, { limits: { 'data /trades': 50 } })
    const { pm, seen } = countingClient(route, clock, { rateLimit: { now: clock.now, sleep: clock.sleep } })
    const results = await Promise.allSettled(Array.from({ length: 600 }, () => pm.trades.limit(5).list()))
    expect(results.filter((r) => r.status === 'rejected')).toEqual([])
    // Without learning, 180 a window against 50 allowed throttles most calls; halving twice brings it to 45.
    expect(seen.throttled).toBeGreaterThan(0)
    expect(seen.throttled).toBeLessThan(20)
  })
})

describe('waiting for the budget', () => {
  it('gives up at once when the call is aborted, in line or at its head, and the line goes on', async () => {
    const clock = fakeClock()
    const route = mockWith(clock, true)
    // One request a minute: the second waits at the head of the line, the third behind it.
    const never = async (_ms: number, signal: AbortSignal | undefined) =>
      new Promise<void>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }))
    const { pm } = countingClient(route, clock, { rateLimit: { now: clock.now, sleep: never, limits: { 'data /trades': 1 }, windowMs: 60_000 } })
    await pm.trades.limit(1).list()
    const [head, behind] = [new AbortController(), new AbortController()]
    const second = pm.trades.limit(1).list({ signal: head.signal })
    const third = pm.trades.limit(1).list({ signal: behind.signal })
    behind.abort(new Error('third gave up'))
    await expect(third).rejects.toThrow('third gave up')
    head.abort(new Error('second gave up'))
    await expect(second).rejects.toThrow('second gave up')
    // Other endpoints never waited on this line.
    await expect(pm.token(TOKEN).midpoint()).resolves.toBeTypeOf('number')
  })
})

describe('the buckets', () => {
  it('never takes more than the limit in any window, with a greedy taker', () => {
    let now = 0
    const bucket = new TokenBucket(100, 10_000, { recoverMs: 30_000 }, now)
    const takes: number[] = []
    while (now < 60_000) {
      const wait = bucket.waitMs(now)
      now += wait
      bucket.take(now)
      takes.push(now)
    }
    for (let i = 0; i < takes.length; i++) {
      const inWindow = takes.filter((t) => t > (takes[i] ?? 0) - 10_000 && t <= (takes[i] ?? 0)).length
      expect(inWindow).toBeLessThanOrEqual(100)
    }
    // and it does not waste the limit either: 6 windows hold close to 600 takes.
    expect(takes.length).toBeGreaterThan(540)
  })

  it('slows down on each throttle and recovers step by step', () => {
    let now = 1_000
    const budget = createRequestBudget({ now: () => now, recoverMs: 30_000 })
    const trades = budget?.gate('data', '/trades')
    expect(trades?.tryTake()).toBe(true)
    trades?.slowDown()
    trades?.slowDown()
    expect(budget?.factors()).toEqual(new Map([['data', 0.25], ['data /trades', 0.25]]))
    now += 30_000
    expect(budget?.factors().get('data /trades')).toBe(0.5)
    now += 30_000
    expect(budget?.factors().get('data /trades')).toBe(1)
  })

  it('counts an endpoint under its parent path, and keeps /price apart from /prices', () => {
    const budget = createRequestBudget({ now: () => 0, limits: { 'gamma /markets': 2 } })
    expect(budget?.gate('gamma', '/markets/keyset').tryTake()).toBe(true)
    expect(budget?.gate('clob', '/prices').tryTake()).toBe(true)
    expect([...(budget?.factors().keys() ?? [])]).toEqual(['gamma', 'gamma /markets', 'clob', 'clob /prices'])
    expect(budget?.gate('gamma', '/markets/slug/x').waitMs()).toBeGreaterThan(0)
  })

  it('is off with rateLimit: false', () => {
    expect(createRequestBudget(false)).toBeUndefined()
  })
})
