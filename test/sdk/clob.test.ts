import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { BadRequestError, MarketUsageError, NotFoundError, type Market } from '../../src/sdk/index.js'
import { CLOB, testClient, urls, useMarketMock } from './helpers/msw.js'

const { server, requests } = useMarketMock()
const YES_2_CUTS = '10051672510051672510051672510051672510051672510051672510051672510051672510051'

describe('token', () => {
  it('reads price by side, midpoint and spread as numbers', async () => {
    const { pm } = testClient()
    const t = pm.token(YES_2_CUTS)
    expect(await t.price('buy')).toBe(0.64)
    expect(await t.price('sell')).toBe(0.65)
    expect(await t.midpoint()).toBe(0.645)
    expect(await t.spread()).toBe(0.01)
    expect(urls(requests)[1]?.searchParams.get('side')).toBe('SELL')
  })

  it('sorts book levels best first although the service sends them the other way', async () => {
    const { pm } = testClient()
    const book = await pm.token(YES_2_CUTS).book()
    expect(book.bids.map((l) => l.price)).toEqual([0.64, 0.63, 0.62])
    expect(book.asks.map((l) => l.price)).toEqual([0.65, 0.66, 0.67])
    expect(book.bids[0]?.size).toBeTypeOf('number')
    expect(book.tokenId).toBe(YES_2_CUTS)
  })

  it('turns null bids into an empty list', async () => {
    const { pm } = testClient()
    const m = await pm.markets.bySlug('bitcoin-above-130k-on-august-15')
    const book = await pm.market(m).yes.book()
    expect(book.bids).toEqual([])
    expect(book.asks.length).toBeGreaterThan(0)
  })

  it('reports the 404 book of a closed market and the 400 of a malformed token', async () => {
    const { pm } = testClient()
    const closed = await pm.markets.bySlug('microstrategy-sells-any-bitcoin-by-may-31-2026')
    const err = await pm.market(closed).yes.book().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(NotFoundError)
    expect(err).toMatchObject({ status: 404, serviceMessage: 'No orderbook exists for the requested token id' })
    await expect(pm.token('12345').book()).rejects.toBeInstanceOf(BadRequestError)
    expect(() => pm.token('0xabc')).toThrow(/Not a token id/)
  })

  it('reads history by interval with fidelity, and by window', async () => {
    const { pm } = testClient()
    const week = await pm.token(YES_2_CUTS).history({ interval: '1w', fidelity: 60 })
    expect(week.length).toBe(169)
    expect(week.at(-1)).toEqual({ t: expect.any(Number), p: 0.64 })
    const end = new Date(Date.UTC(2026, 10, 20))
    const window = await pm.token(YES_2_CUTS).history({ start: new Date(end.getTime() - 86_400_000), end, fidelity: 60 })
    expect(window).toHaveLength(25)
    const [, w] = urls(requests)
    expect(w?.searchParams.get('startTs')).toBe(String(end.getTime() / 1000 - 86_400))
    expect(w?.searchParams.get('market')).toBe(YES_2_CUTS)
  })

  it('reports the service refusing a history window or fidelity', async () => {
    const { pm } = testClient()
    const t = pm.token(YES_2_CUTS)
    await expect(t.history({ interval: '1w', fidelity: 1 })).rejects.toMatchObject({
      code: 'ERR_MARKET_BAD_REQUEST',
      serviceMessage: "invalid filters: minimum 'fidelity' for '1w' range is 5",
    })
    await expect(t.history({ start: 0, end: 30 * 86_400 })).rejects.toThrow(/interval is too long/)
  })

  it('returns an empty history for a brand-new market and for a resolved one over its whole life', async () => {
    const { pm } = testClient()
    const fresh = await pm.markets.bySlug('will-the-new-index-launch-by-friday')
    expect(await pm.market(fresh).history({ interval: '1d' })).toEqual([])
    const closed = await pm.markets.bySlug('microstrategy-sells-any-bitcoin-by-may-31-2026')
    expect(await pm.market(closed).history({ interval: 'max' })).toEqual([])
  })

  it('answers a resolved market over an explicit window, within it, and refuses a window over 15 days', async () => {
    const { pm } = testClient()
    const closed = pm.market(await pm.markets.bySlug('microstrategy-sells-any-bitcoin-by-may-31-2026'))
    const [start, end] = [Date.UTC(2026, 4, 21) / 1000, Date.UTC(2026, 5, 5) / 1000]
    const points = await closed.history({ start, end })
    expect(points.length).toBeGreaterThan(0)
    expect(points.every((pt) => pt.t >= start && pt.t <= end)).toBe(true)
    const tooLong = await closed.history({ start, end: end + 1 }).catch((e: unknown) => e)
    expect(tooLong).toBeInstanceOf(BadRequestError)
    expect(tooLong).toMatchObject({ status: 400, serviceMessage: "invalid filters: 'startTs' and 'endTs' interval is too long" })
  })
})

describe('batch reads', () => {
  it('reads books, prices, midpoints and spreads of several tokens', async () => {
    const { pm } = testClient()
    const m = await pm.markets.bySlug('will-2-fed-rate-cuts-happen-in-2025')
    const ids = m.outcomes.map((o) => o.tokenId!)
    const books = await pm.books(ids)
    expect(books.map((b) => b.tokenId)).toEqual(ids)
    expect(books[0]?.bids[0]?.price).toBe(0.64)
    expect((await pm.prices(ids)).get(YES_2_CUTS)).toEqual({ buy: 0.64, sell: 0.65 })
    expect((await pm.midpoints(ids)).get(YES_2_CUTS)).toBe(0.645)
    expect((await pm.spreads(ids)).get(YES_2_CUTS)).toBe(0.01)
    const sent = (await requests[2]!.json()) as unknown[]
    expect(sent).toContainEqual({ token_id: YES_2_CUTS, side: 'SELL' })
  })

  it('cuts long lists into chunks of 500 sent at most `concurrency` at a time', async () => {
    let inFlight = 0
    let peak = 0
    const sizes: number[] = []
    server.use(
      http.post(`${CLOB}/midpoints`, async ({ request }) => {
        const body = (await request.json()) as { token_id: string }[]
        sizes.push(body.length)
        peak = Math.max(peak, ++inFlight)
        await new Promise((r) => setTimeout(r, 5))
        inFlight--
        return HttpResponse.json(Object.fromEntries(body.map((b) => [b.token_id, '0.5'])))
      }),
    )
    const { pm } = testClient({ concurrency: 2 })
    const ids = Array.from({ length: 2100 }, (_, i) => `${10_000_000_000 + i}`)
    const mids = await pm.midpoints(ids)
    expect(mids.size).toBe(2100)
    expect(sizes.sort((a, b) => b - a)).toEqual([500, 500, 500, 500, 100])
    expect(peak).toBe(2)
  })

  it('sends prices two items per token, so 250 tokens a request', async () => {
    const sizes: number[] = []
    server.use(
      http.post(`${CLOB}/prices`, async ({ request }) => {
        const body = (await request.json()) as { token_id: string; side: string }[]
        sizes.push(body.length)
        return HttpResponse.json(Object.fromEntries(body.map((b) => [b.token_id, { BUY: '0.4', SELL: '0.6' }])))
      }),
    )
    const { pm } = testClient()
    const ids = Array.from({ length: 300 }, (_, i) => `${10_000_000_000 + i}`)
    const prices = await pm.prices([...ids, ids[0]!])
    expect(prices.size).toBe(300)
    expect(prices.get(ids[299]!)).toEqual({ buy: 0.4, sell: 0.6 })
    expect(sizes.sort((a, b) => b - a)).toEqual([500, 100])
  })
})

describe('order-book market list', () => {
  it('walks next_cursor until LTE=', async () => {
    const { pm } = testClient()
    const all = await pm.clobMarkets.toArray({ max: 1000 })
    expect(all).toHaveLength(11)
    const cursors = urls(requests).map((u) => u.searchParams.get('next_cursor'))
    expect(cursors).toEqual([null, btoa('4'), btoa('8')])
    expect(all[0]?.tokens[0]?.tokenId).toMatch(/^\d{70,}$/)
  })

  it('reads one page and reports the end as an undefined cursor', async () => {
    const { pm } = testClient()
    const page = await pm.clobMarkets.after(btoa('8')).page()
    expect(page.items).toHaveLength(3)
    expect(page.nextCursor).toBeUndefined()
  })
})

describe('linking flow', () => {
  it('goes from a catalog market to its book, history, trades and open interest', async () => {
    const { pm } = testClient()
    const m: Market = await pm.markets.bySlug('will-1-fed-rate-cut-happen-in-2025')
    const market = pm.market(m)
    expect(market.yes.id).toBe(m.outcomes[0]?.tokenId)
    expect(pm.token(m.outcomes[1]!).id).toBe(market.no.id)
    expect(market.outcome('no').id).toBe(market.no.id)
    const [book, history, trades, oi] = await Promise.all([
      market.yes.book(),
      market.history({ interval: '1w' }),
      market.trades().limit(5).list(),
      market.openInterest(),
    ])
    expect(book.market).toBe(m.conditionId)
    expect(history.length).toBeGreaterThan(0)
    expect(trades.every((t) => t.conditionId === m.conditionId)).toBe(true)
    expect(oi).toBe(412331.102)
    const h = urls(requests).find((u) => u.pathname === '/prices-history')
    expect(h?.searchParams.get('market')).toBe(m.outcomes[0]?.tokenId)
  })

  it('refuses outcomes a market does not have, saying which it has', async () => {
    const { pm } = testClient()
    const odd = pm.market(await pm.markets.bySlug('odd-market-without-outcomes'))
    expect(() => odd.outcome(0)).toThrow(/has no outcome 0 \(outcomes: none\)/)
    const multi = pm.market(await pm.markets.bySlug('presidential-election-winner-2028'))
    expect(multi.outcome('Carol').id).toMatch(/^\d+$/)
    expect(() => multi.outcome('Dave')).toThrow(/Alice, Bob, Carol/)
  })

  it('gives .yes and .no only on Yes/No markets, and says which outcomes another market has', async () => {
    const { pm } = testClient()
    const multi = pm.market(await pm.markets.bySlug('presidential-election-winner-2028'))
    expect(() => multi.yes).toThrow(MarketUsageError)
    expect(() => multi.no).toThrow(/"presidential-election-winner-2028" is not a Yes\/No market \(outcomes: Alice, Bob, Carol\): use outcome/)
    expect(() => multi.history({ interval: '1d' })).toThrow(/not a Yes\/No market/)
    expect(multi.outcome('Bob').id).toBe(multi.market.outcomes[1]?.tokenId)
    const binary = pm.market(await pm.markets.bySlug('will-1-fed-rate-cut-happen-in-2025'))
    expect([binary.yes.id, binary.no.id]).toEqual(binary.market.outcomes.map((o) => o.tokenId))
    const untokened = pm.market({ ...binary.market, outcomes: binary.market.outcomes.map((o) => ({ ...o, tokenId: null })) })
    expect(() => untokened.yes).toThrow(/Outcome "Yes" of market .* has no order-book token/)
  })

  it('lets a fan-out over many markets skip those without an order book', async () => {
    const { pm } = testClient()
    const markets = await pm.markets.toArray({ max: 100 })
    const handles = markets.map((m) => pm.market(m))
    expect(handles.some((h) => !h.hasOrderBook)).toBe(true)
    const books = await Promise.all(handles.filter((h) => h.hasOrderBook && !h.market.closed).map((h) => h.tokens[0]!.book()))
    expect(books.length).toBe(handles.filter((h) => h.hasOrderBook && !h.market.closed).length)
    const odd = handles.find((h) => h.market.slug === 'odd-market-without-outcomes')!
    expect(odd.tokens).toEqual([])
    expect(handles.find((h) => h.market.slug === 'presidential-election-winner-2028')!.tokens).toHaveLength(3)
  })

  it('refuses trades and open interest of a market without a condition id instead of asking for every market', async () => {
    const { pm } = testClient()
    const m = await pm.markets.bySlug('odd-market-without-outcomes')
    const handle = pm.market({ ...m, conditionId: '' })
    expect(() => handle.trades()).toThrow(/has no condition id/)
    await expect(handle.openInterest()).rejects.toThrow(/has no condition id/)
    expect(urls(requests).map((u) => u.pathname)).toEqual(['/markets/slug/odd-market-without-outcomes'])
  })
})

describe('batch maps', () => {
  it('have a key for every token asked for, null where the service had nothing', async () => {
    const { pm } = testClient()
    const closed = (await pm.markets.bySlug('microstrategy-sells-any-bitcoin-by-may-31-2026')).outcomes[0]!.tokenId!
    const ids = [YES_2_CUTS, closed, '123456789012345']
    const mids = await pm.midpoints(ids)
    expect([...mids]).toEqual([[YES_2_CUTS, 0.645], [closed, null], ['123456789012345', null]])
    expect([...(await pm.spreads(ids)).values()]).toEqual([0.01, null, null])
    expect((await pm.prices(ids)).get(closed)).toBeNull()
    expect((await pm.prices(ids)).get(YES_2_CUTS)).toEqual({ buy: 0.64, sell: 0.65 })
  })
})
