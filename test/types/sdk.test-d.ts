import { expectAssignable, expectError, expectNotAssignable, expectType } from 'tsd'
import {
  createMarketClient,
  MarketError,
  type Book,
  type ClobMarket,
  type Event,
  type EventsQuery,
  type HistoryParams,
  type Market,
  type MarketHandle,
  type MarketsQuery,
  type OpenInterest,
  type Page,
  type PricePoint,
  type SearchResult,
  type Tag,
  type TokenHandle,
  type TokenPrices,
  type Trade,
  type TradesQuery,
  type MarketStream,
  type MarketEvent,
  type StreamEvent,
  type BookUpdate,
  type LiveBook,
  type MarketCursorError,
  type CursorPage,
  type TradesV2Query,
  type TradeV2,
  type Activity,
  type Position,
  type PositionsQuery,
  type HolderGroup,
  type Standing,
  type LeaderboardEntry,
  type PortfolioValue,
  type PnlSeries,
  type OpenInterestV2,
  type LiveVolume,
} from 'hookpilot/sdk'
import { startMockMarketServer, type MockMarketServer } from 'hookpilot/sdk/mock'
import { createMarketHandlers, type MarketMockHandlers } from 'hookpilot/sdk/mock/msw'

const pm = createMarketClient()

// Options accept `| undefined` (exactOptionalPropertyTypes), e.g. straight from process.env.
createMarketClient({ gammaUrl: process.env['GAMMA_URL'], timeout: undefined, retry: { limit: 2 }, concurrency: 8 })
createMarketClient({ retry: false, timeout: false, fetch: globalThis.fetch })
expectError(createMarketClient({ timeout: '10s' }))
expectError(createMarketClient({ gamma: 'http://x' }))

// Builders keep their own type through the chain (generics of the base class resolve per query).
expectType<MarketsQuery>(pm.markets.where({ closed: false }).orderBy('volume24hr').limit(10))
expectType<EventsQuery>(pm.events.where({ tag: 'politics' }).orderBy(['volume', 'openInterest'], 'asc'))
expectType<TradesQuery>(pm.trades.where({ side: 'sell' }).offset(100))

// Terminals return exact types: no `any` leaks out of valibot or ky.
expectType<Promise<Market[]>>(pm.markets.list())
expectType<Promise<Market[]>>(pm.markets.toArray({ max: 10 }))
expectType<Promise<Page<Event>>>(pm.events.page())
expectType<Promise<Market>>(pm.markets.bySlug('s'))
expectType<Promise<Tag[]>>(pm.tags.list())
expectType<Promise<SearchResult>>(pm.search('x').page())
expectType<Promise<Event[]>>(pm.search('x').pageNumber(2).list())
expectType<Promise<Trade[]>>(pm.trades.list())
expectType<Promise<ClobMarket[]>>(pm.clobMarkets.toArray({ max: 5 }))
expectType<Promise<Map<string, TokenPrices | null>>>(pm.prices(['1']))
expectType<Promise<Map<string, number | null>>>(pm.midpoints(['1']))
expectType<Promise<Book[]>>(pm.books(['1']))
expectType<Promise<OpenInterest[]>>(pm.openInterest('0x1'))
// Open interest the service has no figure for is null, not 0.
declare const oiRow: OpenInterest
expectType<number | null>(oiRow.value)

declare const market: Market
expectType<string>(market.id)
expectType<string | null>(market.outcomes[0]!.tokenId)
expectType<number | null>(market.volume)
expectType<unknown>(market.raw['someNewField'])

// The linking flow.
const handle = pm.market(market)
expectType<MarketHandle>(handle)
expectType<TokenHandle>(handle.yes)
expectType<TokenHandle>(pm.token(market.outcomes[0]!))
expectType<Promise<Book>>(handle.yes.book())
expectType<Promise<number>>(handle.yes.price('sell'))
expectType<Promise<PricePoint[]>>(handle.history({ interval: '1w', fidelity: 5 }))
expectType<Promise<number | null>>(handle.openInterest())

// Literal unions: wrong values are rejected.
expectError(pm.markets.orderBy('volumne'))
expectError(pm.events.orderBy('volume', 'down'))
expectError(pm.trades.where({ side: 'BUY' }))
expectError(handle.yes.price('bid'))
expectError(handle.history({ interval: '2w' }))
expectError(pm.markets.where({ closed: 'yes' }))
expectError(pm.markets.limit('10'))
expectError(pm.token(42))

// History is an interval or a window, never both.
expectAssignable<HistoryParams>({ start: new Date(), end: 1_780_000_000 })
expectNotAssignable<HistoryParams>({ interval: '1d', start: 0, end: 1 })
expectNotAssignable<HistoryParams>({ start: 0 })

// toArray needs its bound; builders are not thenable.
expectError(pm.markets.toArray())
expectError(pm.markets.toArray({}))
expectType<undefined>(undefined as unknown as Extract<keyof MarketsQuery, 'then'> extends never ? undefined : 'then')

// Iteration yields the item type.
async function iterate(): Promise<void> {
  for await (const m of pm.markets) expectType<Market>(m)
  for await (const e of pm.events.iterate({ signal: AbortSignal.timeout(1000) })) expectType<Event>(e)
}
void iterate

// Errors narrow with the brand check.
declare const err: unknown
if (MarketError.is(err, 'ERR_MARKET_NOT_FOUND')) {
  expectType<MarketError>(err)
  expectType<number | undefined>(err.status)
}

// The mock.
expectType<Promise<MockMarketServer>>(startMockMarketServer({ port: 0, tickMs: 0 }))
expectType<MarketMockHandlers>(createMarketHandlers())
declare const mockServer: MockMarketServer
expectType<string>(mockServer.wsUrl)
expectType<readonly unknown[]>(mockServer.received)
expectType<void>(mockServer.drop())
createMarketClient(mockServer)

// The stream: custom-feature events only in the type of a stream that asked for them.
expectType<MarketStream<MarketEvent>>(pm.watch(handle))
expectType<MarketStream<MarketEvent>>(pm.watch([handle.yes, market.outcomes[0]!, '123'], { signal: undefined, heartbeat: { intervalMs: 5000 } }))
expectType<MarketStream<StreamEvent>>(pm.watch('123', { customFeatures: true }))
expectType<MarketStream<BookUpdate>>(pm.watchBooks(handle))
expectError(pm.watch(42))
expectError(pm.watch('1', { heartbeat: 10 }))
async function stream(): Promise<void> {
  for await (const e of pm.watch(handle)) {
    if (e.type === 'book') expectType<number>(e.bids[0]!.price)
    if (e.type === 'reconnected') expectType<readonly string[]>(e.tokenIds)
    // @ts-expect-error best_bid_ask is not an event of a stream without custom features
    if (e.type === 'best_bid_ask') void e
  }
  for await (const u of pm.watchBooks('1')) expectType<LiveBook>(u.book)
}
void stream

// Data API v2: builders keep their query type, terminals infer the row type, pages expose their cursors.
const v2trades = pm.v2.trades.where({ condition: ['0xabc'], takerOnly: false, minCash: 100 }).limit(1000).after(undefined)
expectType<TradesV2Query>(v2trades)
expectType<Promise<TradeV2[]>>(v2trades.list())
expectType<Promise<CursorPage<TradeV2>>>(v2trades.page())
expectType<AsyncGenerator<CursorPage<TradeV2>>>(v2trades.eachPage())
expectType<Promise<Activity[]>>(pm.v2.activity('0x1').where({ type: ['TRADE', 'REDEEM'], direction: 'asc' }).list())
expectType<Promise<Position[]>>(pm.v2.positions({ user: '0x1', status: 'REDEEMABLE' }).toArray({ max: 10 }))
expectType<PositionsQuery>(pm.v2.closedPositions('0x1').where({ sortBy: 'REALIZED_PNL' }))
expectType<Promise<HolderGroup[]>>(pm.v2.holders('0xabc').limit(20).list())
expectType<Promise<Standing | null>>(pm.v2.leaderboard.where({ period: 'week' }).standing('0x1'))
expectType<Promise<LeaderboardEntry[]>>(pm.v2.leaderboard.where({ sortBy: 'VOLUME' }).list())
expectType<Promise<PortfolioValue>>(pm.v2.value('0x1'))
expectType<Promise<PnlSeries>>(pm.v2.pnl('0x1', { interval: '1w', fidelity: '1h' }))
expectType<Promise<OpenInterestV2[]>>(pm.v2.openInterest())
expectType<Promise<LiveVolume>>(pm.v2.liveVolume(['1', '2']))
expectError(pm.v2.trades.where({ market: '0xabc' }))
expectError(pm.v2.positions({ user: '0x1', status: 'LOST' }))
expectError(pm.v2.leaderboard.where({ period: 'year' }))
expectError(pm.v2.pnl('0x1', { interval: '2d' }))
declare const cursorErr: MarketCursorError
expectType<'missing' | 'repeated'>(cursorErr.fault)
expectType<string | undefined>(cursorErr.traceId)
