import { readFileSync } from 'node:fs'
import { http, HttpResponse } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { createMarketClient, MarketCursorError, MarketError, MarketUsageError, RateLimitedError, BadRequestError, MarketHttpError } from '../../src/sdk/index.js'
import { DATA, testClient, urls, useMarketMock } from './helpers/msw.js'

const { requests, server, router } = useMarketMock()

/** A sample body of the spec (test/sdk/fixtures/data-v2/, copied from the shared spec's samples). */
const sample = (name: string): unknown => JSON.parse(readFileSync(new URL(`./fixtures/data-v2/${name}.json`, import.meta.url), 'utf8')) as unknown
/** Serves a sample at a path, recording the query it was asked with. */
function serve(path: string, body: unknown): URLSearchParams[] {
  const seen: URLSearchParams[] = []
  server.use(
    http.get(`${DATA}${path}`, ({ request }) => {
      seen.push(new URL(request.url).searchParams)
      return HttpResponse.json(body as Record<string, unknown>)
    }),
  )
  return seen
}

const SPAIN = '0x0070010300700103007001030070010300700103007001030070010300700103'
const MSTR = '0x0216999502169995021699950216999502169995021699950216999502169995'
// The first mock wallet only sells (its positions are all closed); the second holds open ones.
const SELLER = '0xceb57e549f8aa0627f4a4c6004bc8951d78ea27b'
const WALLET = '0x1111111111111111111111111111111111111111'
const SAMPLE_WALLET = '0x9d84ce0306f8551e02efef1680475fc0f1dc1344'

describe('Data API v2 reads on the spec samples', () => {
  it('trades: rows typed, the cursor of the page exposed, filters sent under the v2 names', async () => {
    const { pm } = testClient()
    const seen = serve('/v2/trades', sample('data-v2-trades'))
    const page = await pm.v2.trades.where({ condition: SPAIN, takerOnly: false, minCash: 50, side: 'buy' }).limit(2).page()
    expect(page.items).toHaveLength(2)
    expect(page.items[0]).toMatchObject({ side: 'buy', size: 250, price: 0.037, timestamp: 1780533322, wallet: SAMPLE_WALLET, outcomeIndex: 0, name: 'grenadine' })
    expect(page.items[0]?.tokenId).toBe('25714007960293389110960044475283546872601238755063051359394740854408462452120')
    expect(page.items[1]?.name).toBeNull()
    expect(page).toMatchObject({ cursor: undefined, hasMore: true, nextCursor: expect.stringMatching(/^eyJ/) })
    expect(Object.fromEntries(seen[0]!)).toEqual({ condition: SPAIN, taker_only: 'false', filter_type: 'CASH', filter_amount: '50', side: 'BUY', limit: '2' })
  })

  it('activity: the 999 sentinel and empty fields read as null', async () => {
    const { pm } = testClient()
    serve('/v2/activity', sample('data-v2-activity'))
    const rows = await pm.v2.activity(SAMPLE_WALLET).list()
    const redeem = rows.find((r) => r.type === 'REDEEM')
    expect(redeem).toMatchObject({ outcomeIndex: null, side: null, tokenId: null, price: null, size: 40, usdcSize: 40 })
    expect(rows.find((r) => r.type === 'TRADE')?.side).toMatch(/^(buy|sell)$/)
  })

  it('positions, holders, value, PnL, boards, open interest and live volume', async () => {
    const { pm } = testClient()
    serve('/v2/positions', sample('data-v2-positions'))
    const [position] = await pm.v2.positions({ user: SAMPLE_WALLET }).list()
    expect(position).toMatchObject({ status: 'OPEN', size: 1250, avgPrice: 0.041, currentValue: 48.125, totalPnl: -3.125, redeemable: false })

    serve('/v2/holders', sample('data-v2-holders'))
    const groups = await pm.v2.holders(SPAIN).limit(1).page()
    expect(groups.items.map((g) => g.holders[0]?.amount)).toEqual([18250.5, 90412])
    expect(groups.items[0]?.holders[0]?.pnl).toBeUndefined()

    serve('/v2/value', sample('data-v2-value'))
    expect(await pm.v2.value(SAMPLE_WALLET)).toEqual({ wallet: SAMPLE_WALLET, value: 1284.3917 })

    serve('/v2/user-pnl', sample('data-v2-user-pnl'))
    const pnl = await pm.v2.pnl(SAMPLE_WALLET, { interval: '1d', fidelity: '12h' })
    expect(pnl.points).toHaveLength(2)
    expect(pnl.points[0]).toMatchObject({ realizedPnl: 310.55, unrealizedPnl: -3.125, tradeCount: 87 })

    serve('/v2/leaderboard', sample('data-v2-leaderboard'))
    const board = await pm.v2.leaderboard.limit(2).page()
    expect(board.items.map((r) => r.rank)).toEqual([1, 1])
    server.use(http.get(`${DATA}/v2/leaderboard`, () => HttpResponse.json(sample('data-v2-leaderboard-user') as Record<string, unknown>)))
    expect(await pm.v2.leaderboard.standing(SAMPLE_WALLET)).toMatchObject({ rankPnl: null, rankVolume: 48211, pnl: -12.4 })

    serve('/v2/oi', sample('data-v2-oi-global'))
    expect(await pm.v2.openInterest()).toEqual([{ conditionId: 'GLOBAL', value: 412873559.27 }])
    serve('/v2/oi', sample('data-v2-oi'))
    expect((await pm.v2.openInterest([SPAIN, MSTR])).length).toBeGreaterThan(0)

    serve('/v2/live-volume', sample('data-v2-live-volume'))
    const live = await pm.v2.liveVolume('30002')
    expect(live.total).toBe(1843221.5)
    expect(live.markets[0]?.takerVolume).toBe(1620004.25)
  })

  it('typed errors carry the v2 code, trace id and parameter', async () => {
    const { pm } = testClient()
    const body = (sample('data-v2-errors') as Record<string, unknown>)['bad_cursor_400']
    server.use(http.get(`${DATA}/v2/trades`, () => HttpResponse.json(body as Record<string, unknown>, { status: 400 })))
    const err = await pm.v2.trades.after('tampered').page().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BadRequestError)
    expect(err).toMatchObject({ serviceCode: 'invalid_request', traceId: '0e44a1d7c3b25f98', parameter: 'cursor', retryable: false })
  })
})

describe('Data API v2 reads against the mock', () => {
  it('every paged read walks the mock to its end', async () => {
    const { pm } = testClient()
    const trades = await pm.v2.trades.where({ condition: MSTR }).limit(10).toArray({ max: 1000 })
    expect(trades).toHaveLength(25)
    expect(urls(requests).map((u) => u.searchParams.has('cursor'))).toEqual([false, true, true])
    expect(urls(requests).every((u) => u.searchParams.get('condition') === MSTR)).toBe(true)

    const activity = await pm.v2.activity(WALLET).where({ condition: MSTR }).toArray({ max: 100 })
    expect(activity.length).toBeGreaterThan(0)
    expect(activity.every((a) => a.wallet === WALLET && a.type === 'TRADE')).toBe(true)

    const open = await pm.v2.positions({ user: WALLET }).toArray({ max: 1000 })
    expect(open.length).toBeGreaterThan(0)
    expect(open.every((p) => p.status !== 'CLOSED' && p.wallet === WALLET)).toBe(true)
    const closed = await pm.v2.closedPositions(SELLER).toArray({ max: 1000 })
    expect(closed.length).toBeGreaterThan(0)
    expect(closed.every((p) => p.status === 'CLOSED' && p.size === 0)).toBe(true)

    const groups = await pm.v2.holders(SPAIN).limit(1).toArray({ max: 10 })
    expect(groups.length).toBeGreaterThan(1)
    expect(new Set(groups.map((g) => g.tokenId)).size).toBeGreaterThanOrEqual(1)

    const board = await pm.v2.leaderboard.where({ period: 'week' }).toArray({ max: 10 })
    expect(board.map((r) => r.rank)).toEqual([...board.map((r) => r.rank)].sort((a, b) => a - b))
    expect(await pm.v2.leaderboard.standing(WALLET)).toMatchObject({ wallet: WALLET })

    const value = await pm.v2.value(WALLET)
    expect(value.value).toBeCloseTo(open.reduce((s, p) => s + (p.currentValue ?? 0), 0), 2)
    expect((await pm.v2.pnl(WALLET)).points.length).toBeGreaterThan(0)
    expect(await pm.v2.openInterest()).toEqual([{ conditionId: 'GLOBAL', value: expect.any(Number) }])
    expect((await pm.v2.liveVolume('30002')).markets.map((m) => m.conditionId)).toContain(SPAIN)
  })

  it('walks 10,000 trades by cursor, no offset anywhere', async () => {
    const { pm } = testClient()
    const trades = await pm.v2.trades.where({ condition: SPAIN }).limit(1000).toArray({ max: 10_000 })
    expect(trades).toHaveLength(10_000)
    expect(new Set(trades.map((t) => t.transactionHash)).size).toBe(10_000)
    expect(requests).toHaveLength(10)
    expect(urls(requests).some((u) => u.searchParams.has('offset'))).toBe(false)
  })

  it('resumes from the cursor of a page', async () => {
    const { pm } = testClient()
    const query = pm.v2.trades.where({ condition: MSTR }).limit(10)
    const pages = []
    for await (const page of query.eachPage()) pages.push(page)
    expect(pages.map((p) => p.items.length)).toEqual([10, 10, 5])
    expect(pages[1]?.cursor).toBe(pages[0]?.nextCursor)
    const resumed = await query.after(pages[0]?.nextCursor).toArray({ max: 100 })
    expect(resumed.map((t) => t.transactionHash)).toEqual([...pages[1]!.items, ...pages[2]!.items].map((t) => t.transactionHash))
  })
})

/** A synthetic feed of `total` trades served by cursor, with a fault injected at one page. */
function faultyFeed(total: number, pageSize: number, fault: { page: number; kind: 'repeat' | 'missing' }) {
  const row = (i: number) => ({ ...(sample('data-v2-trades') as { data: Record<string, unknown>[] }).data[0], transaction_hash: `0x${i}` })
  server.use(
    http.get(`${DATA}/v2/trades`, ({ request }) => {
      const cursor = new URL(request.url).searchParams.get('cursor')
      const page = cursor === null ? 0 : Number(cursor.slice(1))
      const data = Array.from({ length: Math.min(pageSize, total - page * pageSize) }, (_, k) => row(page * pageSize + k))
      const more = (page + 1) * pageSize < total
      let next: string | null = more ? `p${page + 1}` : null
      if (page === fault.page && fault.kind === 'repeat') next = `p${page}`
      if (page === fault.page && fault.kind === 'missing') next = null
      return HttpResponse.json({ data, pagination: { has_more: more, next_cursor: next, limit: pageSize, offset: page * pageSize } })
    }),
  )
}

describe('cursor faults on a 10,000-trade walk', () => {
  it('a repeated cursor stops the walk with MarketCursorError, not a loop', async () => {
    const { pm } = testClient()
    faultyFeed(10_000, 1000, { page: 6, kind: 'repeat' })
    const seen: number[] = []
    const err = await (async () => {
      for await (const page of pm.v2.trades.limit(1000).eachPage()) seen.push(page.items.length)
    })().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MarketCursorError)
    expect(MarketError.is(err, 'ERR_MARKET_CURSOR')).toBe(true)
    expect(err).toMatchObject({ fault: 'repeated', cursor: 'p6', pages: 7, endpoint: 'data GET /v2/trades' })
    expect(seen).toHaveLength(6)
    expect(requests).toHaveLength(7)
  })

  it('has_more without a cursor stops the walk with MarketCursorError, not a short end', async () => {
    const { pm } = testClient()
    faultyFeed(10_000, 1000, { page: 3, kind: 'missing' })
    const err = await pm.v2.trades.limit(1000).toArray({ max: 20_000 }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MarketCursorError)
    expect(err).toMatchObject({ fault: 'missing', cursor: 'p3', pages: 4 })
    expect(requests).toHaveLength(4)
  })

  it('the same feed without a fault ends after 10,000 rows', async () => {
    const { pm } = testClient()
    faultyFeed(10_000, 1000, { page: -1, kind: 'repeat' })
    expect(await pm.v2.trades.limit(1000).toArray({ max: 20_000 })).toHaveLength(10_000)
  })
})

describe('refused before sending', () => {
  it('more than 20 distinct condition ids: a MarketUsageError, and no request at all', async () => {
    const { pm } = testClient()
    const ids = Array.from({ length: 21 }, (_, i) => `0x${String(i).padStart(64, '0')}`)
    await expect(pm.v2.trades.where({ condition: ids }).list()).rejects.toThrow(MarketUsageError)
    await expect(pm.v2.trades.where({ condition: ids }).list()).rejects.toThrow(/21 distinct ids; the service takes at most 20/)
    await expect(pm.v2.openInterest(ids)).rejects.toThrow(MarketUsageError)
    await expect(pm.v2.holders(ids).page()).rejects.toThrow(MarketUsageError)
    // Duplicates (in any case) count once, as the service counts them.
    const twenty = [...ids.slice(0, 20), ids[0]!.toUpperCase()]
    await expect(pm.v2.trades.where({ condition: twenty }).limit(1).page()).resolves.toMatchObject({ items: [] })
    expect(requests).toHaveLength(1)
    expect(urls(requests)[0]?.searchParams.get('condition')?.split(',')).toHaveLength(20)
  })

  it('empty filters, bad page sizes and missing anchors', async () => {
    const { pm } = testClient()
    expect(() => pm.v2.trades.limit(1001)).toThrow(MarketUsageError)
    await expect(pm.v2.trades.where({ condition: [] }).list()).rejects.toThrow(/empty list/)
    await expect(pm.v2.trades.where({ user: '' }).list()).rejects.toThrow(MarketUsageError)
    await expect(pm.v2.trades.where({ condition: MSTR, eventId: '1' }).list()).rejects.toThrow(MarketUsageError)
    await expect(pm.v2.positions({}).list()).rejects.toThrow(/need a wallet/)
    await expect(pm.v2.positions({ condition: [MSTR, SPAIN] }).list()).rejects.toThrow(/exactly one condition/)
    await expect(pm.v2.trades.where({ minCash: 1, minShares: 1 }).list()).rejects.toThrow(MarketUsageError)
    expect(requests).toHaveLength(0)
  })

  it('the mock refuses what the service refuses, with the v2 error body', async () => {
    const { pm } = testClient({ retry: false })
    const res = await fetch(`${DATA}/v2/trades?offset=10`)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ code: 'invalid_request', parameter: 'offset', retryable: false, trace_id: expect.any(String) })
    const err = await pm.v2.trades.after('not-a-cursor').page().catch((e: unknown) => e)
    expect(err).toMatchObject({ status: 400, serviceCode: 'invalid_request', parameter: 'cursor', traceId: expect.any(String) })
  })
})

describe('load answers', () => {
  it('429 with Retry-After: waits as asked, then succeeds', async () => {
    const { pm, sleep } = testClient()
    router.throttle(1, { status: 429, retryAfterSeconds: 2 })
    const page = await pm.v2.trades.where({ condition: MSTR }).limit(5).page()
    expect(page.items).toHaveLength(5)
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([2000])
    expect(requests).toHaveLength(2)
  })

  it('503 request_timeout with Retry-After: waits as asked, then succeeds', async () => {
    const { pm, sleep } = testClient()
    router.throttle(1, { status: 503, retryAfterSeconds: 1 })
    expect(await pm.v2.value(WALLET)).toMatchObject({ wallet: WALLET })
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([1000])
  })

  it('the wait is bounded, and the final error carries the code and trace id', async () => {
    const sleep = vi.fn(async (_ms: number, _signal: AbortSignal | undefined) => {})
    const pm = createMarketClient({ retry: { limit: 2, maxDelayMs: 5000, sleep } })
    router.throttle(3, { status: 429, retryAfterSeconds: 3600 })
    const err = await pm.v2.trades.limit(1).page().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RateLimitedError)
    expect(err).toMatchObject({ serviceCode: 'rate_limited', retryable: true, traceId: expect.stringMatching(/^mock/), retryAfterMs: 3_600_000 })
    expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([5000, 5000])
  })

  it('a 503 the service marks not retryable is not retried', async () => {
    const { pm, sleep } = testClient()
    server.use(http.get(`${DATA}/v2/value`, () => HttpResponse.json({ error: 'down', code: 'dependency_unavailable', retryable: false, trace_id: 't1' }, { status: 503, headers: { 'retry-after': '1' } })))
    const err = await pm.v2.value(WALLET).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MarketHttpError)
    expect(err).toMatchObject({ status: 503, serviceCode: 'dependency_unavailable', traceId: 't1' })
    expect(sleep).not.toHaveBeenCalled()
  })
})

describe('the older v1 reads', () => {
  it('still answer on the mock beside v2', async () => {
    const { pm } = testClient()
    expect(await pm.trades.where({ market: MSTR }).toArray({ max: 100 })).toHaveLength(25)
    expect(urls(requests).every((u) => u.pathname === '/trades')).toBe(true)
  })
})
