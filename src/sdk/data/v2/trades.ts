/** `pm.v2.trades`: the Data API v2 trade feed (`/v2/trades`), newest first, walked by cursor with no depth cap. */
import type { Side } from '../../clob/model.js'
import { MarketUsageError } from '../../errors.js'
import type { QueryInit } from '../../http.js'
import { V2TradeSchema } from '../../wire/data-v2.js'
import { toTradeV2, type TradeV2 } from './model.js'
import { V2Query, type V2Schema, idList, sizeFloor, v2Page, wallet, windowParams } from './query.js'

/** Filters of {@link TradesV2Query}. */
export interface TradeV2Filter {
  /** Condition id(s) of markets: at most 20 distinct (checked before sending). Not with `eventId`. */
  readonly condition?: string | readonly string[] | undefined
  /** Catalog event id(s): at most 20 distinct. Not with `condition`. */
  readonly eventId?: string | readonly string[] | undefined
  /** A proxy wallet. */
  readonly user?: string | undefined
  readonly side?: Side | undefined
  /** Each fill once, on its taker side (the service's default, `true`); `false` adds the maker rows. */
  readonly takerOnly?: boolean | undefined
  /** Only trades of at least this many shares. */
  readonly minShares?: number | undefined
  /** Only trades of at least this many USDC. */
  readonly minCash?: number | undefined
  /** Window start (unix seconds or a Date); the service honours the window only with `user`. */
  readonly start?: number | Date | undefined
  /** Window end (unix seconds or a Date). */
  readonly end?: number | Date | undefined
}

const schema = v2Page(V2TradeSchema, toTradeV2)

/**
 * The v2 trade feed, filtered. Every page re-sends the same filters; the walk follows `next_cursor` to the end.
 *
 * @example
 * ```ts
 * for await (const t of pm.v2.trades.where({ condition: m.conditionId, minCash: 100 }).limit(1000)) console.log(t.price)
 * ```
 */
export class TradesV2Query extends V2Query<TradeV2, TradeV2Filter> {
  protected readonly path = '/v2/trades'
  protected readonly schema: V2Schema<TradeV2> = schema

  protected params(f: TradeV2Filter): QueryInit {
    if (f.condition !== undefined && f.eventId !== undefined) {
      throw new MarketUsageError('trades filter by condition or by eventId, not both (the service does not say how it would combine them)')
    }
    return {
      condition: idList('condition', f.condition),
      event_id: idList('eventId', f.eventId),
      user: wallet('user', f.user),
      side: f.side?.toUpperCase(),
      taker_only: f.takerOnly,
      ...sizeFloor(f.minShares, f.minCash),
      ...windowParams(f.start, f.end),
    }
  }
}
