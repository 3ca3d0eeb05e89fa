/**
 * The market channel's events as the SDK gives them: the same conventions as the REST side (numbers for prices and
 * sizes, token ids as strings, `Date`s, `""` decimals as `null`, the wire object in `raw`), plus `reconnected`.
 */
import type { Book, Side } from '../clob/model.js'
import type { GapFilledEvent, GapUnfilledEvent } from './backfill.js'
import { toBook } from '../clob/model.js'
import { num, toNumber } from '../wire/fields.js'
import type {
  BestBidAskWire,
  LastTradePriceWire,
  MarketResolvedWire,
  NewMarketWire,
  PriceChangeWire,
  StreamBookWire,
  TickSizeChangeWire,
} from './wire.js'

/** `book`: a full snapshot of one token's book, levels best first (whatever the wire order). */
export interface BookEvent extends Book {
  readonly type: 'book'
  /** The service's summary hash: an opaque token, not reproducible client-side. */
  readonly hash: string | null
}

/** One level change of a `price_change`: `size` is the new total at `price`; 0 removes the level. */
export interface PriceChange {
  readonly tokenId: string
  readonly price: number
  readonly size: number
  /** `buy` changes the bids, `sell` the asks. */
  readonly side: Side
  readonly hash: string | null
  /** The top of this token's book after the change, when the frame says (`null` otherwise). */
  readonly bestBid: number | null
  readonly bestAsk: number | null
}

/** `price_change`: orders placed or cancelled, for one or more tokens of one market. */
export interface PriceChangeEvent {
  readonly type: 'price_change'
  readonly market: string
  readonly timestamp: Date | null
  readonly changes: readonly PriceChange[]
  readonly raw: PriceChangeWire
}

/** `last_trade_price`: a match (it does not edit the book; the `book` that follows does). */
export interface LastTradePriceEvent {
  readonly type: 'last_trade_price'
  readonly tokenId: string
  readonly market: string
  readonly price: number
  readonly size: number
  /** The taker's side. */
  readonly side: Side
  readonly feeRateBps: number | null
  readonly timestamp: Date | null
  readonly transactionHash: string | null
  readonly raw: LastTradePriceWire
}

/** `tick_size_change`: the token's tick changed (near 0.04 and 0.96). */
export interface TickSizeChangeEvent {
  readonly type: 'tick_size_change'
  readonly tokenId: string
  readonly market: string
  readonly oldTickSize: number | null
  readonly newTickSize: number
  readonly timestamp: Date | null
  readonly raw: TickSizeChangeWire
}

/** `best_bid_ask` (with `customFeatures`): the top of a token's book changed. */
export interface BestBidAskEvent {
  readonly type: 'best_bid_ask'
  readonly tokenId: string
  readonly market: string
  readonly bestBid: number | null
  readonly bestAsk: number | null
  readonly spread: number | null
  readonly timestamp: Date | null
  readonly raw: BestBidAskWire
}

/** `new_market` (with `customFeatures`): a market was listed; it arrives whatever tokens you watch. */
export interface NewMarketEvent {
  readonly type: 'new_market'
  /** Catalog market id. */
  readonly id: string
  /** Condition id. */
  readonly market: string
  readonly question: string
  readonly slug: string
  readonly description: string | null
  /** Token ids, aligned with `outcomes`. */
  readonly tokenIds: readonly string[]
  readonly outcomes: readonly string[]
  readonly tags: readonly string[]
  readonly active: boolean | null
  readonly timestamp: Date | null
  readonly raw: NewMarketWire
}

/** `market_resolved` (with `customFeatures`): a market has its winner. */
export interface MarketResolvedEvent {
  readonly type: 'market_resolved'
  readonly id: string
  readonly market: string
  readonly question: string | null
  readonly slug: string | null
  readonly tokenIds: readonly string[]
  readonly outcomes: readonly string[]
  readonly winningTokenId: string | null
  readonly winningOutcome: string | null
  readonly tags: readonly string[]
  readonly timestamp: Date | null
  readonly raw: MarketResolvedWire
}

/**
 * `reconnected`: the connection of these tokens dropped and is back. Events in between are lost and nothing
 * replays them: every book of these tokens is stale until its fresh `book` snapshot, which follows.
 */
export interface ReconnectedEvent {
  readonly type: 'reconnected'
  /** The tokens of the connection that dropped (all of them unless more than one connection was needed). */
  readonly tokenIds: readonly string[]
  /** Why the old connection was given up: `closed`, `error` or `heartbeat timeout`. */
  readonly reason: string
  /** Connection attempts it took to get back (1 = the first try worked). */
  readonly attempts: number
  /** When the old connection was given up. */
  readonly lostAt: Date
}

/** Events of `pm.watch()` without custom features. */
export type MarketEvent = BookEvent | PriceChangeEvent | LastTradePriceEvent | TickSizeChangeEvent | ReconnectedEvent | GapFilledEvent | GapUnfilledEvent
/** The extra events of `pm.watch(..., { customFeatures: true })`. */
export type CustomFeatureEvent = BestBidAskEvent | NewMarketEvent | MarketResolvedEvent
/** Every event the stream can yield. */
export type StreamEvent = MarketEvent | CustomFeatureEvent

/** An epoch-ms timestamp (number or decimal text) as a `Date`; `null` when absent or not a number. */
export const time = (ms: number | string | null | undefined): Date | null => {
  const n = toNumber(ms)
  return n === null ? null : new Date(n)
}
/** The wire's side as the SDK's. */
export const side = (s: 'BUY' | 'SELL'): Side => (s === 'BUY' ? 'buy' : 'sell')

/** The fields every event about one token has. */
function about<W extends { asset_id: string; market?: string | null | undefined; timestamp?: number | string | null | undefined }>(w: W) {
  return { tokenId: w.asset_id, market: w.market ?? '', timestamp: time(w.timestamp), raw: w }
}

/** Turns a wire `book` into a {@link BookEvent}. */
export function toBookEvent(w: StreamBookWire): BookEvent {
  return { type: 'book', ...toBook(w), hash: w.hash ?? null }
}

/** Turns a wire `price_change` into a {@link PriceChangeEvent}. */
export function toPriceChangeEvent(w: PriceChangeWire): PriceChangeEvent {
  const changes = w.price_changes.map(
    (c): PriceChange => ({
      tokenId: c.asset_id,
      price: num(c.price),
      size: num(c.size),
      side: side(c.side),
      hash: c.hash ?? null,
      bestBid: toNumber(c.best_bid),
      bestAsk: toNumber(c.best_ask),
    }),
  )
  return { type: 'price_change', market: w.market ?? '', timestamp: time(w.timestamp), changes, raw: w }
}

/** Turns a wire `last_trade_price` into a {@link LastTradePriceEvent}. */
export function toLastTradeEvent(w: LastTradePriceWire): LastTradePriceEvent {
  return {
    type: 'last_trade_price',
    ...about(w),
    price: num(w.price),
    size: num(w.size),
    side: side(w.side),
    feeRateBps: toNumber(w.fee_rate_bps),
    transactionHash: w.transaction_hash || null,
  }
}

/** Turns a wire `tick_size_change` into a {@link TickSizeChangeEvent}. */
export function toTickSizeEvent(w: TickSizeChangeWire): TickSizeChangeEvent {
  return { type: 'tick_size_change', ...about(w), oldTickSize: toNumber(w.old_tick_size), newTickSize: num(w.new_tick_size) }
}

/** Turns a wire `best_bid_ask` into a {@link BestBidAskEvent}. */
export function toBestBidAskEvent(w: BestBidAskWire): BestBidAskEvent {
  return { type: 'best_bid_ask', ...about(w), bestBid: toNumber(w.best_bid), bestAsk: toNumber(w.best_ask), spread: toNumber(w.spread) }
}

/** Turns a wire `new_market` into a {@link NewMarketEvent}. */
export function toNewMarketEvent(w: NewMarketWire): NewMarketEvent {
  return {
    type: 'new_market',
    id: w.id,
    market: w.market ?? '',
    question: w.question ?? '',
    slug: w.slug ?? '',
    description: w.description || null,
    tokenIds: w.assets_ids ?? [],
    outcomes: w.outcomes ?? [],
    tags: w.tags ?? [],
    active: w.active ?? null,
    timestamp: time(w.timestamp),
    raw: w,
  }
}

/** Turns a wire `market_resolved` into a {@link MarketResolvedEvent}. */
export function toMarketResolvedEvent(w: MarketResolvedWire): MarketResolvedEvent {
  return {
    type: 'market_resolved',
    id: w.id,
    market: w.market ?? '',
    question: w.question || null,
    slug: w.slug || null,
    tokenIds: w.assets_ids ?? [],
    outcomes: w.outcomes ?? [],
    winningTokenId: w.winning_asset_id || null,
    winningOutcome: w.winning_outcome || null,
    tags: w.tags ?? [],
    timestamp: time(w.timestamp),
    raw: w,
  }
}
