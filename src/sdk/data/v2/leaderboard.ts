/** `pm.v2.leaderboard`: the trader board (`/v2/leaderboard`), and one wallet's standing on it. */
import * as v from 'valibot'
import type { CallOptions, ClientContext } from '../../context.js'
import type { QueryInit } from '../../http.js'
import { toNumber } from '../../wire/fields.js'
import { V2LeaderboardRowSchema, V2StandingSchema, singleSchema } from '../../wire/data-v2.js'
import { text, toLeaderboardEntry, type LeaderboardEntry } from './model.js'
import { V2Query, type V2Schema, v2Page, wallet } from './query.js'

/** The window a board covers (`all` counts realized PnL only). */
export type LeaderboardPeriod = 'day' | 'week' | 'month' | 'all'

/** Filters of {@link LeaderboardQuery}. */
export interface LeaderboardFilter {
  /** Default `day`. */
  readonly period?: LeaderboardPeriod | undefined
  /** `overall` (the default), a catalog category, `combos` (PNL only) or `esports`. */
  readonly category?: string | undefined
  /** Default `PNL`. */
  readonly sortBy?: 'PNL' | 'VOLUME' | undefined
}

/** One wallet's place on a board: ranks are `null` when unranked. */
export interface Standing {
  readonly wallet: string
  readonly pnl: number | null
  readonly volume: number | null
  readonly userName: string | null
  readonly rankPnl: number | null
  readonly rankVolume: number | null
}

const schema = v2Page(V2LeaderboardRowSchema, toLeaderboardEntry)

// The service marks "unranked" both as `null` and as rank 0: both read as `null`.
const rank = (r: number | null | undefined): number | null => (r === undefined || r === null || r === 0 ? null : r)

const StandingSchema = v.pipe(
  singleSchema(V2StandingSchema),
  v.transform(({ data: s }): Standing | null =>
    s === null
      ? null
      : { wallet: s.user_id, pnl: toNumber(s.pnl), volume: toNumber(s.volume), userName: text(s.user_name), rankPnl: rank(s.rank_pnl), rankVolume: rank(s.rank_volume) },
  ),
)

function boardParams(f: LeaderboardFilter): QueryInit {
  return { time_period: f.period, category: f.category, sort_by: f.sortBy }
}

/**
 * The trader board. Ranks are competition ranks (ties share one): never page by rank, follow the cursor.
 *
 * @example
 * ```ts
 * const top = await pm.v2.leaderboard.where({ period: 'week', sortBy: 'VOLUME' }).limit(10).list()
 * ```
 */
export class LeaderboardQuery extends V2Query<LeaderboardEntry, LeaderboardFilter> {
  protected readonly path = '/v2/leaderboard'
  protected readonly schema: V2Schema<LeaderboardEntry> = schema

  protected params(f: LeaderboardFilter): QueryInit {
    return boardParams(f)
  }

  /** One wallet's standing on this board (same period and category); `null` when the wallet is not ranked. */
  async standing(user: string, options: CallOptions = {}): Promise<Standing | null> {
    return standing(this.ctx, { ...boardParams(this.state.filter), sort_by: undefined, user: wallet('user', user) }, options)
  }
}

function standing(ctx: ClientContext, query: QueryInit, options: CallOptions): Promise<Standing | null> {
  return ctx.request({ service: 'data', path: '/v2/leaderboard', query, schema: StandingSchema, signal: options.signal })
}
