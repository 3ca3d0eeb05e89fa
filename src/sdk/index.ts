/**
 * `hookpilot/sdk`: a typed, fluent client of the prediction-market data services (catalog, order book, trades).
 *
 * @example
 * ```ts
 * import { createMarketClient } from 'hookpilot/sdk'
 * const pm = createMarketClient()
 * const m = pm.market(await pm.markets.bySlug('will-1-fed-rate-cut-happen-in-2025'))
 * const book = await m.yes.book()
 * ```
 * @packageDocumentation
 */
export { createMarketClient, DEFAULT_URLS, DEFAULT_USER_AGENT } from './client.js'
export type { MarketClient, MarketClientOptions } from './client.js'
export type { CallOptions } from './context.js'
export type { RetryOptions } from './retry.js'
export type { RateLimitOptions } from './budget/request-budget.js'
export type { LimitKey, Limits } from './budget/limits.js'
export type { Service } from './service.js'
export { PUBLISHED_LIMITS, LIMIT_WINDOW_MS } from './budget/limits.js'
export type { Page, CursorPage, ToArrayOptions, PagedQuery } from './query.js'
export {
  MarketError,
  NotFoundError,
  RateLimitedError,
  BadRequestError,
  ShapeMismatchError,
  MarketTimeoutError,
  MarketHttpError,
  MarketUsageError,
  MarketStreamError,
  MarketCursorError,
} from './errors.js'
export type { MarketErrorCode, MarketErrorDetails, ShapeIssue, CursorFault } from './errors.js'
export type { Market, Event, Tag, Outcome, Profile, SearchResult } from './catalog/model.js'
export type {
  CatalogFilter,
  MarketFilter,
  EventFilter,
  MarketOrderField,
  EventOrderField,
  SortDirection,
  DateBound,
} from './catalog/filters.js'
export type { CatalogQuery, CatalogState } from './catalog/list-query.js'
export type { MarketsQuery } from './catalog/markets.js'
export type { EventsQuery } from './catalog/events.js'
export type { TagsQuery, TagsState } from './catalog/tags.js'
export type { SearchQuery, SearchState, EventsStatus } from './catalog/search.js'
export type { Book, Level, PricePoint, Interval, HistoryParams, Side, ClobMarket, ClobToken } from './clob/model.js'
export type { TokenHandle } from './clob/token.js'
export type { TokenPrices } from './clob/batch.js'
export { BATCH_LIMIT } from './clob/batch.js'
export type { ClobMarketsQuery, ClobMarketsState } from './clob/markets.js'
export type { Trade, TradeFilter, TradesQuery, TradesState } from './data/trades.js'
export { MAX_TRADES_OFFSET } from './data/trades.js'
export type { OpenInterest } from './data/open-interest.js'
export type { DataV2 } from './data/v2/client.js'
export { MAX_V2_PAGE, MAX_V2_IDS } from './data/v2/query.js'
export type { V2Query, V2State, V2Schema, V2PageOf } from './data/v2/query.js'
export type { TradesV2Query, TradeV2Filter } from './data/v2/trades.js'
export type { ActivityQuery, ActivityFilter } from './data/v2/activity.js'
export type { PositionsQuery, PositionFilter, PositionStatus, PositionSort } from './data/v2/positions.js'
export type { HoldersQuery, HolderFilter } from './data/v2/holders.js'
export type { LeaderboardQuery, LeaderboardFilter, LeaderboardPeriod, Standing } from './data/v2/leaderboard.js'
export type { PortfolioValue, PnlSeries, PnlPoint, PnlInterval, PnlFidelity, OpenInterestV2, LiveVolume } from './data/v2/reads.js'
export type {
  TradeV2,
  Activity,
  ActivityType,
  Position,
  PositionState,
  Holder,
  HolderGroup,
  LeaderboardEntry,
  Trader,
} from './data/v2/model.js'
export type { MarketHandle } from './market-handle.js'
export type { GammaMarketWire, GammaEventWire, GammaTagWire, GammaSearchWire } from './wire/gamma.js'
export type { ClobBookWire, ClobMarketWire } from './wire/clob.js'
export type { DataTradeWire } from './wire/data.js'
export type { V2TradeWire, V2ActivityWire, V2PositionWire, V2HolderWire, V2LeaderboardRowWire } from './wire/data-v2.js'
export type {
  StreamEvent,
  MarketEvent,
  CustomFeatureEvent,
  BookEvent,
  PriceChange,
  PriceChangeEvent,
  LastTradePriceEvent,
  TickSizeChangeEvent,
  BestBidAskEvent,
  NewMarketEvent,
  MarketResolvedEvent,
  ReconnectedEvent,
} from './stream/events.js'
export type { GapFilledEvent, GapUnfilledEvent } from './stream/backfill.js'
export type { WatchOptions, WatchTarget, MarketStream } from './stream/watch.js'
export { DEFAULT_TOKENS_PER_CONNECTION } from './stream/watch.js'
export type { UnknownFrameHandler } from './stream/parse.js'
export type { LiveBook } from './stream/order-book.js'
export type { BookUpdate, BookUpdateSource } from './stream/watch-books.js'
export type {
  StreamBookWire,
  PriceChangeWire,
  LastTradePriceWire,
  TickSizeChangeWire,
  BestBidAskWire,
  NewMarketWire,
  MarketResolvedWire,
} from './stream/wire.js'
