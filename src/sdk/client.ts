/** `createMarketClient()`: the one entry of the SDK, wiring options into a transport and the queries. */
import pLimit from 'p-limit'
import { EventsQuery } from './catalog/events.js'
import { MarketsQuery } from './catalog/markets.js'
import type { Market, Outcome } from './catalog/model.js'
import { SearchQuery } from './catalog/search.js'
import { TagsQuery } from './catalog/tags.js'
import * as batch from './clob/batch.js'
import type { Book } from './clob/model.js'
import { ClobMarketsQuery } from './clob/markets.js'
import { TokenHandle } from './clob/token.js'
import type { CallOptions, ClientContext } from './context.js'
import { openInterest, type OpenInterest } from './data/open-interest.js'
import { TradesQuery } from './data/trades.js'
import { dataV2, type DataV2 } from './data/v2/client.js'
import { MarketUsageError } from './errors.js'
import { createTransport } from './http.js'
import { MarketHandle } from './market-handle.js'
import { retryPolicy, type RetryOptions } from './retry.js'
import { createRequestBudget, type RateLimitOptions } from './budget/request-budget.js'
import type { MarketEvent, StreamEvent } from './stream/events.js'
import { booksOf, type BookUpdate } from './stream/watch-books.js'
import { DEFAULT_WS_URL, tokenIdsOf, watchTokens, type MarketStream, type WatchOptions, type WatchTarget } from './stream/watch.js'

/** The real services, used unless overridden. */
export const DEFAULT_URLS = {
  gammaUrl: 'https://gamma-api.polymarket.com',
  clobUrl: 'https://clob.polymarket.com',
  dataUrl: 'https://data-api.polymarket.com',
  wsUrl: DEFAULT_WS_URL,
} as const

/** Sent as `User-Agent`: some edges answer a default fetch agent with a 403 page. */
export const DEFAULT_USER_AGENT = 'hookpilot-market-sdk/0.1 (+https://www.npmjs.com/package/hookpilot)'

/** Options of {@link createMarketClient}; every one is optional and accepts `undefined`. */
export interface MarketClientOptions {
  /** Catalog service base URL. */
  readonly gammaUrl?: string | undefined
  /** Order-book service base URL. */
  readonly clobUrl?: string | undefined
  /** Trades service base URL. */
  readonly dataUrl?: string | undefined
  /** The market WebSocket channel (default the real one, `wss://ws-subscriptions-clob.polymarket.com/ws/market`). */
  readonly wsUrl?: string | undefined
  /** A fetch to use instead of `globalThis.fetch` (read at each call, so msw and test doubles apply). */
  readonly fetch?: typeof globalThis.fetch | undefined
  /** Ms before one attempt fails with MarketTimeoutError (default 15,000; `false` for none). */
  readonly timeout?: number | false | undefined
  /** Retries of reads on 429/5xx/throttle/network: a count, options, or `false` (default 3 retries). */
  readonly retry?: RetryOptions | number | false | undefined
  /** Sent as `User-Agent` (default {@link DEFAULT_USER_AGENT}). */
  readonly userAgent?: string | undefined
  /** Requests in flight at once, across every call of this client (default 4): batch chunks, histories of many markets, ... */
  readonly concurrency?: number | undefined
  /**
   * The request budget: every request of this client waits for a token of its service's and endpoint's bucket, set
   * from the published limits (per 10 s) or from these options; it slows down for a while after a throttled
   * answer. `false` turns it off (default on).
   */
  readonly rateLimit?: RateLimitOptions | false | undefined
}

/** The market client: queries, per-token and per-market handles, batch reads. */
export interface MarketClient {
  /** Catalog markets (`.where()`, `.orderBy()`, `.byId()`, `.bySlug()`, terminals). */
  readonly markets: MarketsQuery
  /** Catalog events with their markets. */
  readonly events: EventsQuery
  /** Catalog tags. */
  readonly tags: TagsQuery
  /** Recent trades from the older Data API v1 (`/trades`, offset-paged, capped at offset 10,000); see {@link MarketClient.v2}. */
  readonly trades: TradesQuery
  /**
   * The Data API v2: trades, activity, positions, holders, value, PnL, leaderboards, open interest and live volume,
   * cursor-paged with no depth cap.
   *
   * @example
   * ```ts
   * for await (const t of pm.v2.trades.where({ condition: m.conditionId }).limit(1000)) console.log(t.size)
   * ```
   */
  readonly v2: DataV2
  /** The order-book service's list of every market, walked with `next_cursor`. */
  readonly clobMarkets: ClobMarketsQuery
  /** Searches events, tags and profiles. */
  search(text: string): SearchQuery
  /** One outcome token by id, or by an {@link Outcome} of a catalog market. */
  token(token: string | Outcome): TokenHandle
  /** A catalog market joined to its tokens, history, trades and open interest. */
  market(market: Market): MarketHandle
  /** Books of many tokens (batched by 500, bounded by `concurrency`). */
  books(tokenIds: readonly string[], options?: CallOptions): Promise<Book[]>
  /** Best buy/sell prices of many tokens: a key for every token asked for, `null` for those the service does not know. */
  prices(tokenIds: readonly string[], options?: CallOptions): Promise<Map<string, batch.TokenPrices | null>>
  /** Midpoints of many tokens: a key for every token asked for, `null` for those the service does not know. */
  midpoints(tokenIds: readonly string[], options?: CallOptions): Promise<Map<string, number | null>>
  /** Spreads of many tokens: a key for every token asked for, `null` for those the service does not know. */
  spreads(tokenIds: readonly string[], options?: CallOptions): Promise<Map<string, number | null>>
  /** Open interest of markets by condition id, from the older Data API v1 (`/oi`); see `pm.v2.openInterest`. */
  openInterest(conditionIds: string | readonly string[], options?: CallOptions): Promise<OpenInterest[]>
  /**
   * Live events of tokens (ids, outcomes, token or market handles) from the market channel, with `reconnected`
   * when continuity was lost.
   *
   * @example
   * ```ts
   * for await (const e of pm.watch(pm.market(m), { signal })) if (e.type === 'last_trade_price') console.log(e.price)
   * ```
   */
  watch(tokens: WatchTarget | readonly WatchTarget[], options: WatchOptions & { readonly customFeatures: true }): MarketStream<StreamEvent>
  watch(tokens: WatchTarget | readonly WatchTarget[], options?: WatchOptions): MarketStream<MarketEvent>
  /**
   * Local order books of tokens, kept from the market channel: `{ tokenId, book, source }` after every change.
   *
   * @example
   * ```ts
   * for await (const { book } of pm.watchBooks(pm.market(m).yes)) console.log(book.bids[0], book.asks[0])
   * ```
   */
  watchBooks(tokens: WatchTarget | readonly WatchTarget[], options?: WatchOptions): MarketStream<BookUpdate>
}

/**
 * Creates a client of the three market services.
 *
 * @example
 * ```ts
 * const pm = createMarketClient()
 * const m = pm.market(await pm.markets.bySlug('will-1-fed-rate-cut-happen-in-2025'))
 * console.log(m.market.outcomes, await m.yes.book(), await m.history({ interval: '1w' }))
 * ```
 */
export function createMarketClient(options: MarketClientOptions = {}): MarketClient {
  const concurrency = options.concurrency ?? 4
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new MarketUsageError(`concurrency must be a positive integer, got ${concurrency}`)
  }
  // p-limit: the concurrency bound of every request of this client (its fan-outs included).
  const limit = pLimit(concurrency)
  const request = createTransport({
    urls: {
      gamma: options.gammaUrl ?? DEFAULT_URLS.gammaUrl,
      clob: options.clobUrl ?? DEFAULT_URLS.clobUrl,
      data: options.dataUrl ?? DEFAULT_URLS.dataUrl,
    },
    fetch: options.fetch,
    timeoutMs: options.timeout ?? 15_000,
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    retry: retryPolicy(options.retry),
    limit,
    budget: createRequestBudget(options.rateLimit),
  })
  const ctx: ClientContext = { request }
  const stream = {
    wsUrl: options.wsUrl ?? DEFAULT_URLS.wsUrl,
    // A stream's backfill walks the trades of its markets, newest first, through this client's budget.
    trades: (market: readonly string[], signal: AbortSignal | undefined) => new TradesQuery(ctx, { filter: { market } }).iterate({ signal }),
  }
  const watch = (tokens: WatchTarget | readonly WatchTarget[], o?: WatchOptions) => watchTokens(stream, tokenIdsOf(tokens), o)
  return {
    markets: new MarketsQuery(ctx, { filter: {} }),
    events: new EventsQuery(ctx, { filter: {} }),
    tags: new TagsQuery(ctx, {}),
    trades: new TradesQuery(ctx, { filter: {} }),
    v2: dataV2(ctx),
    clobMarkets: new ClobMarketsQuery(ctx, {}),
    search: (text) => new SearchQuery(ctx, { q: text }),
    token(token) {
      const id = typeof token === 'string' ? token : token.tokenId
      if (id === null || !/^\d+$/.test(id)) {
        throw new MarketUsageError(`Not a token id: ${JSON.stringify(id)} (token ids are long decimal strings)`)
      }
      return new TokenHandle(ctx, id)
    },
    market: (market) => new MarketHandle(ctx, market),
    books: (ids, o) => batch.books(ctx, ids, o),
    prices: (ids, o) => batch.prices(ctx, ids, o),
    midpoints: (ids, o) => batch.midpoints(ctx, ids, o),
    spreads: (ids, o) => batch.spreads(ctx, ids, o),
    openInterest: (ids, o) => openInterest(ctx, ids, o),
    // The overloads only narrow the event type: one implementation serves both.
    watch: watch as MarketClient['watch'],
    watchBooks: (tokens, o) => booksOf(watch(tokens, o), (id) => new TokenHandle(ctx, id).book({ signal: o?.signal })),
  }
}
