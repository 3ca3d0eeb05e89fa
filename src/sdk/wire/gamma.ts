/**
 * Wire shapes of the catalog service (Gamma), as it really answers. Loose objects: unknown fields are kept in the
 * output so that `raw` on every SDK object has them.
 */
import * as v from 'valibot'
import { encodedList, idField, optBoolean, optNumeric, optString } from './fields.js'

/** A tag as the catalog sends it. */
export const GammaTagSchema = v.looseObject({ id: idField, label: optString, slug: optString })

/** A market as the catalog sends it (top level, inside events and inside search results). */
export const GammaMarketSchema = v.looseObject({
  id: v.optional(idField),
  question: optString,
  conditionId: optString,
  slug: optString,
  description: optString,
  category: optString,
  outcomes: encodedList,
  outcomePrices: encodedList,
  clobTokenIds: encodedList,
  umaResolutionStatuses: encodedList,
  volume: optNumeric,
  volumeNum: optNumeric,
  liquidity: optNumeric,
  liquidityNum: optNumeric,
  volume24hr: optNumeric,
  bestBid: optNumeric,
  bestAsk: optNumeric,
  spread: optNumeric,
  lastTradePrice: optNumeric,
  active: optBoolean,
  closed: optBoolean,
  startDate: optString,
  endDate: optString,
  createdAt: optString,
  closedTime: optString,
})

/** An event as the catalog sends it, with its markets. */
export const GammaEventSchema = v.looseObject({
  id: idField,
  title: optString,
  slug: optString,
  description: optString,
  category: optString,
  volume: optNumeric,
  liquidity: optNumeric,
  openInterest: optNumeric,
  active: optBoolean,
  closed: optBoolean,
  startDate: optString,
  endDate: optString,
  tags: v.optional(v.nullable(v.array(GammaTagSchema))),
  markets: v.optional(v.nullable(v.array(GammaMarketSchema))),
})

/** The answer of `/markets/keyset`; no `next_cursor` on the last page. */
export const GammaMarketsKeysetSchema = v.looseObject({
  markets: v.nullable(v.array(GammaMarketSchema)),
  next_cursor: optString,
})

/** The answer of `/events/keyset`; no `next_cursor` on the last page. */
export const GammaEventsKeysetSchema = v.looseObject({
  events: v.nullable(v.array(GammaEventSchema)),
  next_cursor: optString,
})

/** The answer of `/public-search`; each list can be `null`. */
export const GammaSearchSchema = v.looseObject({
  events: v.optional(v.nullable(v.array(GammaEventSchema))),
  tags: v.optional(v.nullable(v.array(GammaTagSchema))),
  profiles: v.optional(v.nullable(v.array(v.looseObject({ id: v.optional(idField), name: optString })))),
  pagination: v.optional(
    v.nullable(v.looseObject({ hasMore: optBoolean, totalResults: v.optional(v.nullable(v.number())) })),
  ),
})

/** A catalog market on the wire (unknown fields kept). */
export type GammaMarketWire = v.InferOutput<typeof GammaMarketSchema>
/** A catalog event on the wire (unknown fields kept). */
export type GammaEventWire = v.InferOutput<typeof GammaEventSchema>
/** A catalog tag on the wire (unknown fields kept). */
export type GammaTagWire = v.InferOutput<typeof GammaTagSchema>
/** A `/public-search` answer on the wire. */
export type GammaSearchWire = v.InferOutput<typeof GammaSearchSchema>
