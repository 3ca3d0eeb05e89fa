/** Wire shapes of the order-book service (CLOB). Prices and sizes arrive as decimal strings (sometimes numbers). */
import * as v from 'valibot'
import { idField, numeric, optBoolean, optNumeric, optString } from './fields.js'

/** One level of a book: `{price, size}` as decimal strings. */
export const ClobLevelSchema = v.looseObject({ price: numeric, size: numeric })

/** An order book; `bids`/`asks` can be `null` and come in no reliable order. */
export const ClobBookSchema = v.looseObject({
  market: optString,
  asset_id: idField,
  timestamp: optNumeric,
  hash: optString,
  bids: v.optional(v.nullable(v.array(ClobLevelSchema))),
  asks: v.optional(v.nullable(v.array(ClobLevelSchema))),
  min_order_size: optNumeric,
  tick_size: optNumeric,
  neg_risk: optBoolean,
  last_trade_price: optNumeric,
})

/** `/price` → `{price}`. */
export const ClobPriceSchema = v.looseObject({ price: numeric })
/** `/midpoint` → `{mid}`. */
export const ClobMidpointSchema = v.looseObject({ mid: numeric })
/** `/spread` → `{spread}`. */
export const ClobSpreadSchema = v.looseObject({ spread: numeric })

/** `/prices-history` → `{history: [{t, p}]}`; `p` is a number on the real service, a string in older docs. */
export const ClobHistorySchema = v.looseObject({
  history: v.nullable(v.array(v.looseObject({ t: v.number(), p: numeric }))),
})

/** `POST /prices` → `{token: {BUY, SELL}}`. */
export const ClobBatchPricesSchema = v.record(
  v.string(),
  v.looseObject({ BUY: v.optional(numeric), SELL: v.optional(numeric) }),
)

/** `POST /midpoints` and `/spreads` → `{token: "0.45"}`. */
export const ClobBatchValuesSchema = v.record(v.string(), numeric)

/** One item of the order-book service's `/markets` list. */
export const ClobMarketSchema = v.looseObject({
  condition_id: v.string(),
  question: optString,
  market_slug: optString,
  active: optBoolean,
  closed: optBoolean,
  tokens: v.optional(
    v.nullable(
      v.array(v.looseObject({ token_id: idField, outcome: optString, price: optNumeric, winner: optBoolean })),
    ),
  ),
})

/** The `/markets` envelope; `count` is the page size, the last page's `next_cursor` is `LTE=`. */
export const ClobMarketsPageSchema = v.looseObject({
  data: v.nullable(v.array(ClobMarketSchema)),
  next_cursor: optString,
  limit: v.optional(v.nullable(v.number())),
  count: v.optional(v.nullable(v.number())),
})

/** An order book on the wire. */
export type ClobBookWire = v.InferOutput<typeof ClobBookSchema>
/** An item of the order-book service's market list on the wire. */
export type ClobMarketWire = v.InferOutput<typeof ClobMarketSchema>
