/**
 * What the Data API v2 reads give back: camelCase objects with the wire row in `raw`. Amounts are numbers (the v2
 * service sends JSON numbers; a decimal string is read the same way as elsewhere in the SDK), timestamps unix
 * seconds as on the wire, and the service's sentinels made plain: `""` and outcome index 999 ("could not be
 * labelled") become `null`, and a missing amount is `null` (unknown), never 0.
 */
import type { Side } from '../../clob/model.js'
import { num, toNumber } from '../../wire/fields.js'
import type { V2ActivityWire, V2HolderWire, V2LeaderboardRowWire, V2PositionWire, V2TradeWire } from '../../wire/data-v2.js'

/** `""`, `null` and absent all mean "none". */
export const text = (s: string | null | undefined): string | null => (s === undefined || s === null || s === '' ? null : s)
/** Outcome index 999 is the service's "could not be labelled". */
export const outcomeIndexOf = (i: number | null | undefined): number | null => (i === undefined || i === null || i === 999 ? null : i)
const sideOf = (s: string): Side => (s === 'BUY' ? 'buy' : 'sell')

/** Who a row is about: the proxy wallet and its public profile. */
export interface Trader {
  readonly wallet: string
  readonly name: string | null
  readonly pseudonym: string | null
}

/** One trade of `pm.v2.trades` (one fill, on its taker side unless `takerOnly: false`). */
export interface TradeV2 extends Trader {
  /** This wallet's side. */
  readonly side: Side
  /** Shares. */
  readonly size: number
  /** USDC per share. */
  readonly price: number
  /** Block time, unix seconds. */
  readonly timestamp: number
  readonly tokenId: string
  readonly conditionId: string
  readonly outcome: string | null
  readonly outcomeIndex: number | null
  readonly title: string | null
  readonly slug: string | null
  readonly eventSlug: string | null
  readonly transactionHash: string | null
  readonly raw: V2TradeWire
}

export function toTradeV2(w: V2TradeWire): TradeV2 {
  return {
    wallet: w.proxy_wallet,
    name: text(w.name),
    pseudonym: text(w.pseudonym),
    side: sideOf(w.side),
    size: num(w.size),
    price: num(w.price),
    timestamp: w.timestamp,
    tokenId: w.token_id,
    conditionId: w.condition_id,
    outcome: text(w.outcome),
    outcomeIndex: outcomeIndexOf(w.outcome_index),
    title: text(w.title),
    slug: text(w.slug),
    eventSlug: text(w.event_slug),
    transactionHash: text(w.transaction_hash),
    raw: w,
  }
}

/** Kinds of activity rows (the service may add others). */
export type ActivityType = 'TRADE' | 'SPLIT' | 'MERGE' | 'REDEEM' | 'REWARD' | 'CONVERSION' | 'TIP' | (string & {})

/** One row of a wallet's activity. */
export interface Activity extends Trader {
  readonly type: ActivityType
  /** Unix seconds. */
  readonly timestamp: number
  /** Shares. */
  readonly size: number
  /** USDC. */
  readonly usdcSize: number
  /** USDC per share; `null` where it does not apply (the service sends 0 then). */
  readonly price: number | null
  /** `buy`/`sell` on trades, `in`/`out` on tips, `null` otherwise. */
  readonly side: 'buy' | 'sell' | 'in' | 'out' | null
  readonly conditionId: string | null
  readonly tokenId: string | null
  readonly outcome: string | null
  readonly outcomeIndex: number | null
  readonly title: string | null
  readonly slug: string | null
  readonly eventSlug: string | null
  readonly transactionHash: string | null
  readonly isCombo: boolean
  readonly raw: V2ActivityWire
}

export function toActivity(w: V2ActivityWire): Activity {
  const side = w.side?.toLowerCase()
  const price = toNumber(w.price)
  return {
    wallet: w.proxy_wallet,
    name: text(w.name),
    pseudonym: text(w.pseudonym),
    type: w.type,
    timestamp: w.timestamp,
    size: num(w.size),
    usdcSize: num(w.usdc_size),
    price: price === 0 && w.type !== 'TRADE' ? null : price,
    side: side === 'buy' || side === 'sell' || side === 'in' || side === 'out' ? side : null,
    conditionId: text(w.condition_id),
    tokenId: text(w.token_id),
    outcome: text(w.outcome),
    outcomeIndex: outcomeIndexOf(w.outcome_index),
    title: text(w.title),
    slug: text(w.slug),
    eventSlug: text(w.event_slug),
    transactionHash: text(w.transaction_hash),
    isCombo: w.is_combo === true,
    raw: w,
  }
}

/** The state of a position row. */
export type PositionState = 'OPEN' | 'REDEEMABLE' | 'CLOSED' | (string & {})

/** One position of a wallet in one outcome token. Amounts in USDC unless said; `null` = unavailable. */
export interface Position {
  readonly wallet: string
  readonly name: string | null
  readonly tokenId: string
  readonly conditionId: string
  readonly status: PositionState
  /** Shares held now. */
  readonly size: number
  /** Shares bought over the position's life. */
  readonly totalBought: number | null
  readonly avgPrice: number
  readonly currentPrice: number | null
  readonly currentValue: number | null
  /** Cost without fees. */
  readonly entryCost: number | null
  readonly entryFees: number | null
  readonly totalCost: number | null
  readonly realizedPnl: number | null
  readonly unrealizedPnl: number | null
  readonly totalPnl: number | null
  readonly percentPnl: number | null
  readonly redeemable: boolean
  readonly mergeable: boolean
  readonly negativeRisk: boolean
  readonly archived: boolean
  readonly title: string | null
  readonly slug: string | null
  readonly eventId: string | null
  readonly eventSlug: string | null
  readonly outcome: string | null
  readonly outcomeIndex: number | null
  /** `YYYY-MM-DD`; `null` when the market has none (the service's `1970-01-01`). */
  readonly endDate: string | null
  /** Unix seconds of the last event on the position; `null` when unknown. */
  readonly lastEventAt: number | null
  readonly raw: V2PositionWire
}

export function toPosition(w: V2PositionWire): Position {
  return {
    wallet: w.proxy_wallet,
    name: text(w.name),
    tokenId: w.token_id,
    conditionId: w.condition_id,
    status: w.status,
    size: num(w.current_size),
    totalBought: toNumber(w.total_size),
    avgPrice: num(w.avg_price),
    currentPrice: toNumber(w.current_price),
    currentValue: toNumber(w.current_value),
    entryCost: toNumber(w.entry_cost_usdc),
    entryFees: toNumber(w.entry_fees_usdc),
    totalCost: toNumber(w.total_cost_usdc),
    realizedPnl: toNumber(w.realized_pnl),
    unrealizedPnl: toNumber(w.unrealized_pnl),
    totalPnl: toNumber(w.total_pnl),
    percentPnl: toNumber(w.percent_pnl),
    redeemable: w.redeemable === true,
    mergeable: w.mergeable === true,
    negativeRisk: w.negative_risk === true,
    archived: w.archived === true,
    title: text(w.title),
    slug: text(w.slug),
    eventId: text(w.event_id),
    eventSlug: text(w.event_slug),
    outcome: text(w.outcome),
    outcomeIndex: outcomeIndexOf(w.outcome_index),
    endDate: w.end_date === '1970-01-01' ? null : text(w.end_date),
    lastEventAt: w.last_event_at ?? null,
    raw: w,
  }
}

/** One holder of an outcome token. */
export interface Holder extends Trader {
  readonly tokenId: string
  /** Net shares held (per-side gross with `includePnl`). */
  readonly amount: number
  readonly outcomeIndex: number | null
  readonly verified: boolean
  /** Present with `includePnl`: the holder's figures in USDC, `null` where the service has none. */
  readonly pnl?: { readonly avgPrice: number | null; readonly currentValue: number | null; readonly realized: number | null; readonly unrealized: number | null; readonly total: number | null }
  readonly raw: V2HolderWire
}

export function toHolder(w: V2HolderWire): Holder {
  const base = {
    wallet: w.proxy_wallet,
    name: text(w.name),
    pseudonym: text(w.pseudonym),
    tokenId: w.token_id,
    amount: num(w.amount),
    outcomeIndex: outcomeIndexOf(w.outcome_index),
    verified: w.verified === true,
    raw: w,
  }
  if (!('total_pnl' in w) && !('avg_price' in w)) return base
  return {
    ...base,
    pnl: {
      avgPrice: toNumber(w.avg_price),
      currentValue: toNumber(w.current_value),
      realized: toNumber(w.realized_pnl),
      unrealized: toNumber(w.unrealized_pnl),
      total: toNumber(w.total_pnl),
    },
  }
}

/** The holders of one outcome token, on one page. Pages of several markets interleave: merge them by `tokenId`. */
export interface HolderGroup {
  readonly tokenId: string
  readonly holders: readonly Holder[]
}

/** One row of the trader board. */
export interface LeaderboardEntry {
  /** Competition rank: ties share one, the next skips. */
  readonly rank: number
  readonly wallet: string
  /** USDC. */
  readonly pnl: number | null
  /** Shares, both sides. */
  readonly volume: number | null
  readonly userName: string | null
  readonly xUsername: string | null
  readonly verified: boolean
  readonly raw: V2LeaderboardRowWire
}

export function toLeaderboardEntry(w: V2LeaderboardRowWire): LeaderboardEntry {
  return {
    rank: w.rank,
    wallet: w.user_id,
    pnl: toNumber(w.pnl),
    volume: toNumber(w.volume),
    userName: text(w.user_name),
    xUsername: text(w.x_username),
    verified: w.verified === true,
    raw: w,
  }
}
