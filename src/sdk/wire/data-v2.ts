/**
 * Wire shapes of the Data API v2 (`/v2/...`): every answer is `{ data }`, paged ones `{ data, pagination }`; keys
 * are snake_case; amounts are JSON numbers (a decimal string is accepted too, as everywhere in the SDK, and read as
 * a number). Loose objects: unknown fields stay in `raw`. Contract: the Data API v2 OpenAPI (docs.polymarket.com).
 */
import * as v from 'valibot'
import { idField, numeric, optBoolean, optNumeric, optString } from './fields.js'

/** `pagination` of a paged answer. `has_more` is exact; `next_cursor` is `null` (or absent) on the last page. */
export const PaginationSchema = v.looseObject({
  has_more: v.boolean(),
  next_cursor: v.optional(v.nullable(v.string())),
  limit: v.optional(v.number()),
  offset: v.optional(v.number()),
})

/** `{ data: Row[], pagination }`. */
export function pagedSchema<R extends v.GenericSchema>(row: R) {
  return v.looseObject({ data: v.array(row), pagination: PaginationSchema })
}

/** `{ data: T }`, no pagination. */
export function singleSchema<R extends v.GenericSchema>(data: R) {
  return v.looseObject({ data })
}

const int = v.number()
const optInt = v.optional(v.nullable(v.number()))

/** A `/v2/trades` row. */
export const V2TradeSchema = v.looseObject({
  proxy_wallet: v.string(),
  side: v.picklist(['BUY', 'SELL']),
  token_id: idField,
  condition_id: v.string(),
  size: numeric,
  price: numeric,
  timestamp: int,
  title: optString,
  slug: optString,
  icon: optString,
  event_slug: optString,
  outcome: optString,
  outcome_index: optInt,
  name: optString,
  pseudonym: optString,
  bio: optString,
  profile_image: optString,
  profile_image_optimized: optString,
  transaction_hash: optString,
})

/** A `/v2/activity` row. */
export const V2ActivitySchema = v.looseObject({
  proxy_wallet: v.string(),
  timestamp: int,
  condition_id: optString,
  type: v.string(),
  size: numeric,
  usdc_size: numeric,
  transaction_hash: optString,
  price: optNumeric,
  token_id: v.optional(v.nullable(idField)),
  side: optString,
  outcome_index: optInt,
  title: optString,
  slug: optString,
  icon: optString,
  event_slug: optString,
  outcome: optString,
  name: optString,
  pseudonym: optString,
  bio: optString,
  profile_image: optString,
  profile_image_optimized: optString,
  is_combo: optBoolean,
})

/** A `/v2/positions` row (the same shape for every status). */
export const V2PositionSchema = v.looseObject({
  proxy_wallet: v.string(),
  token_id: idField,
  condition_id: v.string(),
  current_size: numeric,
  avg_price: numeric,
  entry_cost_usdc: optNumeric,
  entry_fees_usdc: optNumeric,
  total_cost_usdc: optNumeric,
  current_price: optNumeric,
  current_value: optNumeric,
  total_size: optNumeric,
  realized_pnl: optNumeric,
  unrealized_pnl: optNumeric,
  total_pnl: optNumeric,
  percent_pnl: optNumeric,
  percent_realized_pnl: optNumeric,
  status: v.string(),
  redeemable: optBoolean,
  mergeable: optBoolean,
  negative_risk: optBoolean,
  archived: optBoolean,
  title: optString,
  slug: optString,
  icon: optString,
  event_id: v.optional(v.nullable(idField)),
  event_slug: optString,
  outcome: optString,
  outcome_index: optInt,
  opposite_outcome: optString,
  opposite_token_id: v.optional(v.nullable(idField)),
  end_date: optString,
  last_event_at: optInt,
  first_entry_at: optInt,
  name: optString,
  profile_image: optString,
  verified: optBoolean,
})

/** One holder inside a `/v2/holders` group. */
export const V2HolderSchema = v.looseObject({
  proxy_wallet: v.string(),
  token_id: idField,
  amount: numeric,
  outcome_index: optInt,
  name: optString,
  pseudonym: optString,
  bio: optString,
  profile_image: optString,
  profile_image_optimized: optString,
  display_username_public: optBoolean,
  verified: optBoolean,
  avg_price: optNumeric,
  entry_cost_usdc: optNumeric,
  current_price: optNumeric,
  current_value: optNumeric,
  realized_pnl: optNumeric,
  unrealized_pnl: optNumeric,
  total_pnl: optNumeric,
})

/** A `/v2/holders` row: the holders of one outcome token. */
export const V2HolderGroupSchema = v.looseObject({ token_id: idField, holders: v.array(V2HolderSchema) })

/** `/v2/value` data. */
export const V2ValueSchema = v.looseObject({ proxy_wallet: v.string(), value: numeric })

/** One point of `/v2/user-pnl`: cumulative USDC; the optional figures are `null` when unavailable (never 0). */
export const V2PnlPointSchema = v.looseObject({
  timestamp: int,
  source_block: optInt,
  realized_pnl: numeric,
  realized_market_pnl: optNumeric,
  realized_lp_pnl: optNumeric,
  realized_combo_pnl: optNumeric,
  volume: optNumeric,
  volume_usdc: optNumeric,
  trade_count: optInt,
  unrealized_pnl: optNumeric,
  fees: optNumeric,
  settled_pnl: optNumeric,
  economic_pnl: optNumeric,
})

/** `/v2/user-pnl` data. */
export const V2PnlSeriesSchema = v.looseObject({
  proxy_wallet: v.string(),
  interval: v.string(),
  fidelity: v.string(),
  source_fidelity: optString,
  points: v.array(V2PnlPointSchema),
})

/** A `/v2/leaderboard` board row. */
export const V2LeaderboardRowSchema = v.looseObject({
  rank: int,
  user_id: v.string(),
  pnl: optNumeric,
  volume: optNumeric,
  user_name: optString,
  profile_image: optString,
  x_username: optString,
  verified: optBoolean,
})

/** `/v2/leaderboard?user=` data: one wallet's standing, `null` when unranked. */
export const V2StandingSchema = v.nullable(
  v.looseObject({
    user_id: v.string(),
    pnl: optNumeric,
    volume: optNumeric,
    user_name: optString,
    profile_image: optString,
    x_username: optString,
    verified: optBoolean,
    rank_pnl: optInt,
    rank_volume: optInt,
  }),
)

/** `/v2/oi` data. */
export const V2OpenInterestSchema = v.array(v.looseObject({ condition_id: v.string(), value: numeric }))

/** `/v2/live-volume` data. */
export const V2LiveVolumeSchema = v.looseObject({
  taker_volume_total: numeric,
  conditions: v.array(v.looseObject({ condition_id: v.string(), taker_volume: numeric })),
})

/** A trade row on the wire. */
export type V2TradeWire = v.InferOutput<typeof V2TradeSchema>
/** An activity row on the wire. */
export type V2ActivityWire = v.InferOutput<typeof V2ActivitySchema>
/** A position row on the wire. */
export type V2PositionWire = v.InferOutput<typeof V2PositionSchema>
/** A holder on the wire. */
export type V2HolderWire = v.InferOutput<typeof V2HolderSchema>
/** A leaderboard row on the wire. */
export type V2LeaderboardRowWire = v.InferOutput<typeof V2LeaderboardRowSchema>
