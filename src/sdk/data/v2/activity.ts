/** `pm.v2.activity(user)`: one wallet's activity feed (`/v2/activity`): trades, splits, merges, redemptions, rewards. */
import type { Side } from '../../clob/model.js'
import { MarketUsageError } from '../../errors.js'
import type { QueryInit } from '../../http.js'
import { V2ActivitySchema } from '../../wire/data-v2.js'
import { toActivity, type Activity, type ActivityType } from './model.js'
import { V2Query, type V2Schema, idList, v2Page, wallet, windowParams } from './query.js'

/** Filters of {@link ActivityQuery}; the wallet is given to `pm.v2.activity(user)`. */
export interface ActivityFilter {
  /** @internal Set by `pm.v2.activity(user)`. */
  readonly user?: string | undefined
  /** Only these kinds (`TIP` rows come only when named). */
  readonly type?: ActivityType | readonly ActivityType[] | undefined
  /** Condition id(s), at most 20 distinct. Not with `eventId`. */
  readonly condition?: string | readonly string[] | undefined
  /** Catalog event id(s), at most 20 distinct. Not with `condition`. */
  readonly eventId?: string | readonly string[] | undefined
  readonly side?: Side | undefined
  readonly start?: number | Date | undefined
  readonly end?: number | Date | undefined
  /** Oldest first (`asc`) or newest first (`desc`, the default). */
  readonly direction?: 'asc' | 'desc' | undefined
  /** Keep deposits and withdrawals (the service leaves them out by default). */
  readonly includeDepositsWithdrawals?: boolean | undefined
}

const schema = v2Page(V2ActivitySchema, toActivity)

/**
 * A wallet's activity, newest first unless told otherwise.
 *
 * @example
 * ```ts
 * const redeemed = await pm.v2.activity(wallet).where({ type: 'REDEEM' }).list()
 * ```
 */
export class ActivityQuery extends V2Query<Activity, ActivityFilter> {
  protected readonly path = '/v2/activity'
  protected readonly schema: V2Schema<Activity> = schema

  protected params(f: ActivityFilter): QueryInit {
    const user = wallet('user', f.user)
    if (user === undefined) throw new MarketUsageError('activity needs a wallet: pm.v2.activity(user)')
    if (f.condition !== undefined && f.eventId !== undefined) throw new MarketUsageError('activity filters by condition or by eventId, not both (the service refuses it)')
    const types = f.type === undefined ? undefined : typeof f.type === 'string' ? [f.type] : f.type
    if (types?.length === 0) throw new MarketUsageError('type is an empty list')
    return {
      user,
      type: types?.join(','),
      condition: idList('condition', f.condition),
      event_id: idList('eventId', f.eventId),
      side: f.side?.toUpperCase(),
      ...windowParams(f.start, f.end),
      sort_direction: f.direction?.toUpperCase(),
      exclude_deposits_withdrawals: f.includeDepositsWithdrawals === undefined ? undefined : !f.includeDepositsWithdrawals,
    }
  }
}
