/** Wire shapes of the trades service (Data API): bare arrays, numbers as numbers. */
import * as v from 'valibot'
import { idField, numeric, optNumeric, optString } from './fields.js'

/** One trade, newest first in `/trades`. */
export const DataTradeSchema = v.looseObject({
  side: v.picklist(['BUY', 'SELL']),
  size: numeric,
  price: numeric,
  timestamp: v.number(),
  asset: v.optional(idField),
  conditionId: optString,
  title: optString,
  slug: optString,
  eventSlug: optString,
  outcome: optString,
  outcomeIndex: v.optional(v.nullable(v.number())),
  proxyWallet: optString,
  name: optString,
  pseudonym: optString,
  transactionHash: optString,
})

/** `/trades` → a bare array. */
export const DataTradesSchema = v.array(DataTradeSchema)

/** `/oi` → `[{market, value}]`. */
export const DataOpenInterestSchema = v.array(v.looseObject({ market: v.string(), value: optNumeric }))

/** A trade on the wire. */
export type DataTradeWire = v.InferOutput<typeof DataTradeSchema>
