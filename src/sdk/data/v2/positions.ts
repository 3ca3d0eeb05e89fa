/** `pm.v2.positions(...)`: positions of a wallet, or of every holder of one market (`/v2/positions`), by status. */
import { MarketUsageError } from '../../errors.js'
import type { QueryInit } from '../../http.js'
import { V2PositionSchema } from '../../wire/data-v2.js'
import { toPosition, type Position } from './model.js'
import { V2Query, type V2Schema, idList, sizeFloor, v2Page, wallet, windowParams } from './query.js'

/**
 * Which positions: `OPEN` (the default: every position still held, resolved-but-unredeemed included),
 * `REDEEMABLE`, `REDEEMABLE_LOST` (needs a wallet), `MERGEABLE` (needs a wallet) or `CLOSED`.
 */
export type PositionStatus = 'OPEN' | 'REDEEMABLE' | 'REDEEMABLE_LOST' | 'MERGEABLE' | 'CLOSED'

/** What positions are sorted by. */
export type PositionSort = 'CURRENT_VALUE' | 'PRICE' | 'TOKENS' | 'UNREALIZED_PNL' | 'REALIZED_PNL' | 'TOTAL_PNL' | 'TIMESTAMP'

/** Filters of {@link PositionsQuery}. `user` and/or `condition` anchor it (`pm.v2.positions({ user })`). */
export interface PositionFilter {
  /** A proxy wallet. */
  readonly user?: string | undefined
  /** Condition id(s): with `user`, up to 20 narrow it; without, exactly one market (its holders' positions). */
  readonly condition?: string | readonly string[] | undefined
  readonly status?: PositionStatus | undefined
  /** Catalog event id(s), at most 20 (with `user` only). */
  readonly eventId?: string | readonly string[] | undefined
  /** Case-insensitive part of the market title (at most 200 characters). */
  readonly title?: string | undefined
  readonly minShares?: number | undefined
  readonly minCash?: number | undefined
  readonly includeArchived?: boolean | undefined
  readonly sortBy?: PositionSort | undefined
  readonly direction?: 'asc' | 'desc' | undefined
  /** Bounds on the last event of a position (unix seconds or a Date). */
  readonly start?: number | Date | undefined
  readonly end?: number | Date | undefined
}

const schema = v2Page(V2PositionSchema, toPosition)

/**
 * Positions, by status.
 *
 * @example
 * ```ts
 * const open = await pm.v2.positions({ user: wallet }).toArray({ max: 500 })
 * const closed = await pm.v2.closedPositions(wallet).where({ sortBy: 'REALIZED_PNL' }).list()
 * ```
 */
export class PositionsQuery extends V2Query<Position, PositionFilter> {
  protected readonly path = '/v2/positions'
  protected readonly schema: V2Schema<Position> = schema

  protected params(f: PositionFilter): QueryInit {
    const user = wallet('user', f.user)
    const condition = idList('condition', f.condition)
    if (user === undefined && condition === undefined) throw new MarketUsageError('positions need a wallet (user) or a market (condition)')
    if (user === undefined && condition?.includes(',')) throw new MarketUsageError('positions without a wallet take exactly one condition id')
    if (user === undefined && (f.eventId !== undefined || f.status === 'REDEEMABLE_LOST' || f.status === 'MERGEABLE')) {
      throw new MarketUsageError('eventId and the REDEEMABLE_LOST and MERGEABLE statuses need a wallet (user)')
    }
    if (f.includeArchived === true && f.status === 'CLOSED') throw new MarketUsageError('includeArchived cannot be used with status CLOSED (the service refuses it)')
    if (f.title !== undefined && f.title.length > 200) throw new MarketUsageError('title is at most 200 characters')
    return {
      user,
      condition,
      status: f.status,
      event_id: idList('eventId', f.eventId),
      title: f.title,
      ...sizeFloor(f.minShares, f.minCash),
      include_archived: f.includeArchived,
      sort_by: f.sortBy,
      sort_direction: f.direction?.toUpperCase(),
      ...windowParams(f.start, f.end),
    }
  }
}
