import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { MarketError, NotFoundError, BadRequestError, MarketUsageError, MarketCursorError } from '../../src/sdk/index.js'
import { GAMMA, testClient, urls, useMarketMock } from './helpers/msw.js'

const { requests, server } = useMarketMock()

describe('markets', () => {
  it('parses double-encoded fields once into outcomes, Yes first, token ids as exact strings', async () => {
    const { pm } = testClient()
    const m = await pm.markets.bySlug('will-1-fed-rate-cut-happen-in-2025')
    expect(m.outcomes).toEqual([
      { label: 'Yes', price: 0.035, tokenId: '15353185604353847122370324954202969073036867278400776447048296624042585335546' },
      { label: 'No', price: 0.965, tokenId: '8829116457391127483902158761839461290128476112830932901839012839102938102938' },
    ])
    expect(m.volume).toBe(4123311.02)
    expect(m.raw['feeSchedule']).toEqual({ exponent: 1, rate: 0.04, takerOnly: true })
  })

  it('keeps markets with more than two outcomes and with null, empty or missing encoded fields', async () => {
    const { pm } = testClient()
    const multi = await pm.markets.bySlug('presidential-election-winner-2028')
    expect(multi.outcomes.map((o) => o.label)).toEqual(['Alice', 'Bob', 'Carol'])
    const odd = await pm.markets.bySlug('odd-market-without-outcomes')
    expect(odd.outcomes).toEqual([])
    expect(odd.id).toBe('800002')
  })

  it('reads the closed time format and resolution statuses', async () => {
    const { pm } = testClient()
    const m = await pm.markets.byId('2169995')
    expect(m.closedTime?.toISOString()).toBe('2026-06-04T00:34:19.000Z')
    expect(m.umaResolutionStatuses).toEqual(['proposed', 'resolved'])
  })

  it('turns 200 null by slug and 404 by id into NotFoundError', async () => {
    const { pm } = testClient()
    const bySlug = await pm.markets.bySlug('nope').catch((e: unknown) => e)
    expect(bySlug).toBeInstanceOf(NotFoundError)
    expect(MarketError.is(bySlug, 'ERR_MARKET_NOT_FOUND')).toBe(true)
    const byId = await pm.markets.byId('999').catch((e: unknown) => e)
    expect(byId).toMatchObject({ code: 'ERR_MARKET_NOT_FOUND', status: 404 })
  })

  it('walks every page of the keyset list although pages are clamped short', async () => {
    const { pm } = testClient()
    const all = await pm.markets.toArray({ max: 100 })
    expect(all).toHaveLength(12)
    const walked = urls(requests).map((u) => [u.pathname, u.searchParams.get('after_cursor')])
    expect(walked).toHaveLength(3)
    expect(walked.every(([p]) => p === '/markets/keyset')).toBe(true)
    expect(walked[0]?.[1]).toBeNull()
  })

  it('stops at the bound without fetching further pages', async () => {
    const { pm } = testClient()
    expect(await pm.markets.toArray({ max: 3 })).toHaveLength(3)
    expect(requests).toHaveLength(1)
    expect(new URL(requests[0]!.url).searchParams.get('limit')).toBe('3')
  })

  it('iterates lazily with for await', async () => {
    const { pm } = testClient()
    const seen: string[] = []
    for await (const m of pm.markets.where({ closed: false })) {
      seen.push(m.slug)
      if (seen.length === 6) break
    }
    expect(seen).toHaveLength(6)
    expect(requests).toHaveLength(2)
  })

  it('sends filters as the service wants them and resolves a tag slug to its id', async () => {
    const { pm } = testClient()
    const found = await pm.markets
      .where({ tag: 'fed-rates', closed: false, volumeMin: 3_000_000, slug: ['will-1-fed-rate-cut-happen-in-2025', 'will-2-fed-rate-cuts-happen-in-2025'] })
      .orderBy('volume', 'asc')
      .list()
    expect(found.map((m) => m.id)).toEqual(['516724', '516725'])
    const [tag, list] = urls(requests)
    expect(tag?.pathname).toBe('/tags/slug/fed-rates')
    expect(list?.searchParams.getAll('slug')).toHaveLength(2)
    expect(list?.searchParams.get('tag_id')).toBe('100196')
    expect(list?.searchParams.get('volume_num_min')).toBe('3000000')
    expect(list?.searchParams.get('order')).toBe('volume')
    expect(list?.searchParams.get('ascending')).toBe('true')
  })

  it('sends every filter under the name each list wants', async () => {
    const { pm } = testClient()
    const dates = { startDateMin: new Date(Date.UTC(2025, 0, 1)), endDateMax: '2026-12-31T23:59:59Z' }
    const common = { ids: ['1', '2'], relatedTags: true, archived: false, liquidityMin: 10, volumeMax: 5e9, ...dates }
    await pm.markets.where({ ...common, tagId: '21', conditionIds: ['0xa', '0xb'], tokenIds: ['123'] }).list()
    await pm.events.where({ ...common, tag: 'crypto' }).list()
    const [markets, events] = urls(requests).map((u) => u.searchParams)
    expect(markets?.getAll('id')).toEqual(['1', '2'])
    expect(markets?.getAll('condition_ids')).toEqual(['0xa', '0xb'])
    expect(markets?.get('clob_token_ids')).toBe('123')
    expect(markets?.get('tag_id')).toBe('21')
    expect(markets?.get('liquidity_num_min')).toBe('10')
    expect(markets?.get('volume_num_max')).toBe('5000000000')
    expect(markets?.get('start_date_min')).toBe('2025-01-01T00:00:00.000Z')
    expect(markets?.get('end_date_max')).toBe('2026-12-31T23:59:59Z')
    expect(markets?.get('related_tags')).toBe('true')
    expect(markets?.get('archived')).toBe('false')
    expect(markets?.has('closed')).toBe(false)
    expect(events?.get('tag_slug')).toBe('crypto')
    expect(events?.get('liquidity_min')).toBe('10')
    expect(events?.get('volume_max')).toBe('5000000000')
    expect(events?.get('closed')).toBe('false')
    expect(events?.getAll('id')).toEqual(['1', '2'])
  })

  it('pages the keyset list by hand with page() and after()', async () => {
    const { pm } = testClient()
    const first = await pm.markets.limit(5).page()
    expect(first.items).toHaveLength(5)
    const second = await pm.markets.limit(5).after(first.nextCursor).page()
    expect(second.items[0]?.id).not.toBe(first.items[0]?.id)
    expect(urls(requests)[1]?.searchParams.get('after_cursor')).toBe(first.nextCursor)
  })

  it('reads the older offset list only after an explicit offset(), which the service still answers when shallow', async () => {
    const { pm } = testClient()
    const markets = await pm.markets.offset(2).limit(3).list()
    expect(markets).toHaveLength(3)
    expect(urls(requests).map((u) => [u.pathname, u.searchParams.get('offset')])).toEqual([['/markets', '2']])
  })

  it('stops a keyset walk whose cursor the service ignores with MarketCursorError, instead of looping', async () => {
    const { pm } = testClient()
    // A service that ignores the cursor (as Gamma does under any name but after_cursor): page one, forever.
    let served = 0
    server.use(
      http.get(`${GAMMA}/events/keyset`, () => {
        served++
        return HttpResponse.json({ events: [{ id: '1', slug: 'a', title: 'A', markets: [] }], next_cursor: 'same-cursor' })
      }),
    )
    const err = await pm.events.toArray({ max: 1000 }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MarketCursorError)
    expect(err).toMatchObject({ code: 'ERR_MARKET_CURSOR', fault: 'repeated', endpoint: 'gamma GET /events/keyset', cursor: 'same-cursor' })
    expect(served).toBe(2)
    // The cursor went back under the one name the service reads.
    expect(urls(requests)[1]?.searchParams.get('after_cursor')).toBe('same-cursor')
  })

  it('reports a deep offset as BadRequestError with the service message', async () => {
    const { pm } = testClient()
    const err = await pm.markets.offset(5000).list().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BadRequestError)
    expect(err).toMatchObject({ status: 422, serviceMessage: expect.stringContaining('keyset') })
  })

  it('keeps builders immutable', async () => {
    const { pm } = testClient()
    const open = pm.markets.where({ closed: false })
    const limited = open.limit(5)
    expect(limited).not.toBe(open)
    expect(open).not.toBe(pm.markets)
    expect('then' in open).toBe(false)
    // Deriving never changes the parent: it still sends only what it was built with.
    open.orderBy('volume').where({ active: true }).offset(10)
    await open.list()
    await pm.markets.list()
    const [sent, root] = urls(requests).map((u) => Object.fromEntries(u.searchParams))
    expect(sent).toEqual({ closed: 'false' })
    expect(root).toEqual({})
  })

  it('rejects bad bounds and counts where they are written', async () => {
    const { pm } = testClient()
    expect(() => pm.markets.limit(0)).toThrow(MarketUsageError)
    await expect(pm.markets.toArray({ max: 0 })).rejects.toThrow(/positive integer/)
  })
})

describe('events', () => {
  it('sends closed=false explicitly by default and walks the clamped keyset pages', async () => {
    const { pm } = testClient()
    const open = await pm.events.toArray({ max: 50 })
    expect(open.map((e) => e.closed)).not.toContain(true)
    expect(open).toHaveLength(5)
    expect(urls(requests).every((u) => u.searchParams.get('closed') === 'false')).toBe(true)
    expect(requests).toHaveLength(3)
  })

  it('filters by tag slug, sorts, and reads one event with its markets', async () => {
    const { pm } = testClient()
    const politics = await pm.events.where({ tag: 'politics' }).orderBy('volume').list()
    expect(politics.map((e) => e.slug)).toEqual(['how-many-fed-rate-cuts-in-2025', 'presidential-election-winner-2028'])
    // The descending order above is also the mock's natural one: ascending proves the sort is applied.
    const ascending = await pm.events.where({ tag: 'politics' }).orderBy('volume', 'asc').list()
    expect(ascending.map((e) => e.slug)).toEqual(['presidential-election-winner-2028', 'how-many-fed-rate-cuts-in-2025'])
    const e = await pm.events.bySlug('how-many-fed-rate-cuts-in-2025')
    expect(e.markets).toHaveLength(3)
    expect(e.tags.map((t) => t.slug)).toEqual(['politics', 'fed-rates'])
    await expect(pm.events.bySlug('nope')).rejects.toBeInstanceOf(NotFoundError)
    await expect(pm.events.byId('16085')).resolves.toMatchObject({ title: 'How many Fed rate cuts in 2025?' })
  })
})

describe('search and tags', () => {
  it('searches, turning null lists into empty ones', async () => {
    const { pm } = testClient()
    const r = await pm.search('bitcoin').page()
    expect(r.events.map((e) => e.slug)).toContain('bitcoin-above-on-august-15')
    expect(r.tags.map((t) => t.slug)).toEqual(['bitcoin'])
    expect(r.profiles[0]?.name).toBe('btcmaxi')
    const none = await pm.search('zzz-nothing').page()
    expect(none).toMatchObject({ events: [], tags: [], profiles: [], hasMore: false, totalResults: 0 })
  })

  it('sends the search options the service knows', async () => {
    const { pm } = testClient()
    const r = await pm.search('bitcoin').status('closed').keepClosedMarkets().page()
    expect(r.events.map((e) => e.slug)).toEqual(['microstrategy-sell-any-bitcoin-in-2025'])
    expect(r.events[0]?.markets).toHaveLength(1)
    const [u] = urls(requests)
    expect(u?.searchParams.get('events_status')).toBe('closed')
    expect(u?.searchParams.get('keep_closed_markets')).toBe('true')
  })

  it('iterates search pages while the service says there are more', async () => {
    const { pm } = testClient()
    const all = await pm.search('will').limitPerType(2).toArray({ max: 20 })
    expect(all).toHaveLength(4)
    expect(urls(requests).map((u) => u.searchParams.get('page'))).toEqual(['1', '2'])
  })

  it('walks the tag list by offset across clamped pages', async () => {
    const { pm } = testClient()
    const tags = await pm.tags.toArray({ max: 100 })
    expect(tags).toHaveLength(7)
    expect(urls(requests).map((u) => u.searchParams.get('offset'))).toEqual(['0', '3', '6', '7'])
    await expect(pm.tags.bySlug('crypto')).resolves.toMatchObject({ id: '21', label: 'Crypto' })
  })
})

describe('paging the way the builders say', () => {
  it('starts iteration and toArray at offset(), on markets and events alike', async () => {
    const { pm } = testClient()
    const all = await pm.markets.toArray({ max: 100 })
    const skipped = await pm.markets.offset(2).toArray({ max: 4 })
    expect(skipped.map((m) => m.id)).toEqual(all.slice(2, 6).map((m) => m.id))
    const seen: string[] = []
    for await (const m of pm.markets.offset(7)) seen.push(m.id)
    expect(seen).toEqual(all.slice(7).map((m) => m.id))
    const events = await pm.events.toArray({ max: 50 })
    expect((await pm.events.offset(3).toArray({ max: 50 })).map((e) => e.id)).toEqual(events.slice(3).map((e) => e.id))
  })

  it('asks every list for no bigger a page than toArray needs', async () => {
    const { pm } = testClient()
    await pm.tags.toArray({ max: 1 })
    await pm.search('will').toArray({ max: 2 })
    await pm.trades.toArray({ max: 3 })
    await pm.markets.toArray({ max: 4 })
    const [tags, search, trades, markets] = urls(requests)
    expect(tags?.searchParams.get('limit')).toBe('1')
    expect(search?.searchParams.get('limit_per_type')).toBe('2')
    expect(trades?.searchParams.get('limit')).toBe('3')
    expect(markets?.searchParams.get('limit')).toBe('4')
  })

  it('gives list() as many items as limit() asked for, across pages the service cut short', async () => {
    const { pm } = testClient()
    const markets = await pm.markets.where({ closed: false }).limit(8).list()
    expect(markets).toHaveLength(8)
    // By the keyset list: the second request follows the first's cursor, asking only for what is still missing.
    const [a, b] = urls(requests)
    expect([a?.pathname, a?.searchParams.get('after_cursor'), a?.searchParams.get('limit')]).toEqual(['/markets/keyset', null, '8'])
    expect([b?.pathname, b?.searchParams.get('limit')]).toEqual(['/markets/keyset', '3'])
    expect(b?.searchParams.get('after_cursor')).toBeTruthy()
    expect(urls(requests).some((u) => u.searchParams.has('offset'))).toBe(false)
    expect(await pm.tags.limit(5).list()).toHaveLength(5)
    expect(await pm.trades.limit(15).list()).toHaveLength(15)
    // Fewer only when there are no more.
    expect(await pm.tags.offset(5).limit(10).list()).toHaveLength(2)
  })

  it('fails an unknown tag slug the same way on markets and events, while a known tag may match nothing', async () => {
    const { pm } = testClient()
    for (const query of [pm.markets.where({ tag: 'politcs' }), pm.events.where({ tag: 'politcs' })]) {
      await expect(query.list()).rejects.toThrow(NotFoundError)
      await expect(query.toArray({ max: 5 })).rejects.toThrow('No tag has the slug "politcs"')
      await expect(query.page()).rejects.toMatchObject({ code: 'ERR_MARKET_NOT_FOUND' })
    }
    await expect(pm.events.where({ tag: 'bitcoin', closed: true }).list()).resolves.toEqual([])
  })

  it('names the terminals alike on search: list() gives events, page() the whole page, pageNumber() picks one', async () => {
    const { pm } = testClient()
    const events = await pm.search('will').limitPerType(2).pageNumber(2).list()
    expect(events.map((e) => e.slug)).toHaveLength(2)
    const page = await pm.search('will').limitPerType(2).pageNumber(2).page()
    expect(page.events.map((e) => e.slug)).toEqual(events.map((e) => e.slug))
    expect(page).toMatchObject({ hasMore: false, totalResults: 4 })
    expect(urls(requests).map((u) => u.searchParams.get('page'))).toEqual(['2', '2'])
  })
})
