/**
 * Wire shapes of the market WebSocket channel, as it really sends them: decimal strings (sometimes `""`), epoch-ms
 * timestamps as strings, `side` in any case, new optional fields without notice. Loose objects keep unknown fields.
 */
import * as v from 'valibot'
import { ClobBookSchema } from '../wire/clob.js'
import { idField, numeric, optBoolean, optNumeric, optString } from '../wire/fields.js'

/** `BUY`/`SELL`, upper-cased first: the channel's case has not been reliable. */
const sideField = v.pipe(v.string(), v.toUpperCase(), v.picklist(['BUY', 'SELL']))
const optIdList = v.optional(v.nullable(v.array(idField)))
const optStringList = v.optional(v.nullable(v.array(v.string())))

/** `book`: a full snapshot of one asset (the same fields as the REST `/book`, plus `event_type`). */
export const StreamBookSchema = ClobBookSchema

/** One entry of a `price_change`: the new total size at one level of one asset. */
export const PriceChangeEntrySchema = v.looseObject({
  asset_id: idField,
  price: numeric,
  size: numeric,
  side: sideField,
  hash: optString,
  best_bid: optNumeric,
  best_ask: optNumeric,
})

/** `price_change` in the shape current since 2025-09-15 (`price_changes[]`, possibly for several assets). */
export const PriceChangeSchema = v.looseObject({
  market: optString,
  timestamp: optNumeric,
  price_changes: v.array(PriceChangeEntrySchema),
})

/** `last_trade_price`: a match; `side` is the taker's. */
export const LastTradePriceSchema = v.looseObject({
  asset_id: idField,
  market: optString,
  price: numeric,
  size: numeric,
  side: sideField,
  fee_rate_bps: optNumeric,
  timestamp: optNumeric,
  transaction_hash: optString,
})

/** `tick_size_change`: the tick changed (the book's levels did not). */
export const TickSizeChangeSchema = v.looseObject({
  asset_id: idField,
  market: optString,
  old_tick_size: optNumeric,
  new_tick_size: numeric,
  timestamp: optNumeric,
})

/** `best_bid_ask` (custom feature): the top of one asset's book changed. */
export const BestBidAskSchema = v.looseObject({
  asset_id: idField,
  market: optString,
  best_bid: optNumeric,
  best_ask: optNumeric,
  spread: optNumeric,
  timestamp: optNumeric,
})

/** `new_market` (custom feature): a market was listed; not filtered by the subscription's assets. */
export const NewMarketSchema = v.looseObject({
  id: idField,
  market: optString,
  question: optString,
  slug: optString,
  description: optString,
  assets_ids: optIdList,
  outcomes: optStringList,
  tags: optStringList,
  active: optBoolean,
  timestamp: optNumeric,
})

/** `market_resolved` (custom feature): a market has a winner. */
export const MarketResolvedSchema = v.looseObject({
  id: idField,
  market: optString,
  question: optString,
  slug: optString,
  assets_ids: optIdList,
  outcomes: optStringList,
  tags: optStringList,
  winning_asset_id: v.optional(v.nullable(idField)),
  winning_outcome: optString,
  timestamp: optNumeric,
})

/** A `book` frame on the wire. */
export type StreamBookWire = v.InferOutput<typeof StreamBookSchema>
/** A `price_change` frame on the wire. */
export type PriceChangeWire = v.InferOutput<typeof PriceChangeSchema>
/** A `last_trade_price` frame on the wire. */
export type LastTradePriceWire = v.InferOutput<typeof LastTradePriceSchema>
/** A `tick_size_change` frame on the wire. */
export type TickSizeChangeWire = v.InferOutput<typeof TickSizeChangeSchema>
/** A `best_bid_ask` frame on the wire. */
export type BestBidAskWire = v.InferOutput<typeof BestBidAskSchema>
/** A `new_market` frame on the wire. */
export type NewMarketWire = v.InferOutput<typeof NewMarketSchema>
/** A `market_resolved` frame on the wire. */
export type MarketResolvedWire = v.InferOutput<typeof MarketResolvedSchema>
