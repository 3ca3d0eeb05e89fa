/** The order-book service's objects as the SDK gives them: numbers for prices and sizes, levels best first. */
import { num, toNumber } from '../wire/fields.js'
import type { ClobBookWire, ClobMarketWire } from '../wire/clob.js'

/** Which side of the book a price is for. */
export type Side = 'buy' | 'sell'

/** One price level. */
export interface Level {
  readonly price: number
  readonly size: number
}

/** An order book with levels sorted best first: bids descending, asks ascending. */
export interface Book {
  /** Condition id of the market. */
  readonly market: string
  readonly tokenId: string
  readonly timestamp: Date | null
  readonly bids: readonly Level[]
  readonly asks: readonly Level[]
  readonly minOrderSize: number | null
  readonly tickSize: number | null
  readonly negRisk: boolean
  readonly lastTradePrice: number | null
  readonly raw: ClobBookWire
}

/** One point of a price history. */
export interface PricePoint {
  /** Unix seconds. */
  readonly t: number
  /** Price as a probability in [0, 1]. */
  readonly p: number
}

/** Intervals of price history; `1m` is one month, `max` and `all` the whole life (empty once resolved). */
export type Interval = '1h' | '6h' | '1d' | '1w' | '1m' | 'max' | 'all'

/**
 * What history to read: a named interval ending now, or an explicit window (Dates or unix seconds, at most 15 days).
 * `fidelity` is the bucket size in minutes (the service wants at least 5 for `1w` and 10 for `1m`).
 */
export type HistoryParams =
  | { readonly interval: Interval; readonly fidelity?: number | undefined; readonly start?: never; readonly end?: never }
  | {
      readonly start: Date | number
      readonly end: Date | number
      readonly fidelity?: number | undefined
      readonly interval?: never
    }

/** An outcome token of an order-book market. */
export interface ClobToken {
  readonly tokenId: string
  readonly outcome: string
  readonly price: number | null
  readonly winner: boolean
}

/** An item of the order-book service's market list. */
export interface ClobMarket {
  readonly conditionId: string
  readonly question: string
  readonly slug: string | null
  readonly active: boolean
  readonly closed: boolean
  readonly tokens: readonly ClobToken[]
  readonly raw: ClobMarketWire
}

function levels(raw: ClobBookWire['bids'], best: 'high' | 'low'): Level[] {
  return bestFirst(
    (raw ?? []).map((l) => ({ price: num(l.price), size: num(l.size) })),
    best,
  )
}

/**
 * `levels` sorted best first, in place: what a stable sort by price gives. The service's order has been seen both
 * ways (bids ascending and asks descending is what it sends now): a side already in order is kept, one strictly in
 * the opposite order is reversed (the same result, without a sort's comparisons), anything else is sorted.
 */
export function bestFirst(levels: Level[], best: 'high' | 'low'): Level[] {
  const sign = best === 'high' ? 1 : -1
  let ordered = true
  let reversed = true
  for (let i = 1; i < levels.length && (ordered || reversed); i++) {
    const d = sign * ((levels[i - 1] as Level).price - (levels[i] as Level).price)
    if (d < 0) ordered = false
    if (d >= 0) reversed = false
  }
  if (ordered) return levels
  if (reversed) return levels.reverse()
  return levels.sort((a, b) => sign * (b.price - a.price))
}

/** Turns a wire book into a {@link Book}. */
export function toBook(w: ClobBookWire): Book {
  const ms = toNumber(w.timestamp)
  return {
    market: w.market ?? '',
    tokenId: w.asset_id,
    timestamp: ms === null ? null : new Date(ms),
    bids: levels(w.bids, 'high'),
    asks: levels(w.asks, 'low'),
    minOrderSize: toNumber(w.min_order_size),
    tickSize: toNumber(w.tick_size),
    negRisk: w.neg_risk ?? false,
    lastTradePrice: toNumber(w.last_trade_price),
    raw: w,
  }
}

/** Turns a wire market-list item into a {@link ClobMarket}. */
export function toClobMarket(w: ClobMarketWire): ClobMarket {
  return {
    conditionId: w.condition_id,
    question: w.question ?? '',
    slug: w.market_slug || null,
    active: w.active ?? false,
    closed: w.closed ?? false,
    tokens: (w.tokens ?? []).map((t) => ({
      tokenId: t.token_id,
      outcome: t.outcome ?? '',
      price: toNumber(t.price),
      winner: t.winner ?? false,
    })),
    raw: w,
  }
}

/** The query parameters of a history request for one token. */
export function historyQuery(tokenId: string, params: HistoryParams): Record<string, string | number | undefined> {
  const seconds = (d: Date | number): number => (d instanceof Date ? Math.floor(d.getTime() / 1000) : d)
  if (params.interval !== undefined) return { market: tokenId, interval: params.interval, fidelity: params.fidelity }
  return { market: tokenId, startTs: seconds(params.start), endTs: seconds(params.end), fidelity: params.fidelity }
}
