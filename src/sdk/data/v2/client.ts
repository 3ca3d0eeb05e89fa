/** `pm.v2`: the Data API v2 reads of one client, grouped so the older v1 reads (`pm.trades`, `pm.openInterest`) stay as they were. */
import type { CallOptions, ClientContext } from '../../context.js'
import { ActivityQuery } from './activity.js'
import { HoldersQuery } from './holders.js'
import { LeaderboardQuery } from './leaderboard.js'
import { PositionsQuery, type PositionFilter } from './positions.js'
import { liveVolume, openInterestV2, pnlSeries, portfolioValue, type LiveVolume, type OpenInterestV2, type PnlFidelity, type PnlInterval, type PnlSeries, type PortfolioValue } from './reads.js'
import { TradesV2Query } from './trades.js'

/** The Data API v2 (`/v2/...`): cursor-paged reads that throw MarketCursorError rather than loop or stop short. */
export interface DataV2 {
  /** The trade feed (`condition`, `eventId`, `user`, `side`, `takerOnly`, size floors), newest first, no depth cap. */
  readonly trades: TradesV2Query
  /** The trader board. */
  readonly leaderboard: LeaderboardQuery
  /** One wallet's activity feed. */
  activity(user: string): ActivityQuery
  /** Positions of a wallet, or of one market's holders; `status` picks open (default), redeemable, closed, ... */
  positions(anchor: PositionFilter): PositionsQuery
  /** A wallet's closed positions (`positions({ user, status: 'CLOSED' })`), by realized PnL. */
  closedPositions(user: string): PositionsQuery
  /** The top holders of each outcome token of markets (at most 20 condition ids). */
  holders(conditionIds: string | readonly string[]): HoldersQuery
  /** A wallet's portfolio value in USDC. */
  value(user: string, options?: CallOptions & { readonly condition?: string | readonly string[] | undefined }): Promise<PortfolioValue>
  /** A wallet's cumulative profit and loss over time. */
  pnl(user: string, options?: CallOptions & { readonly interval?: PnlInterval | undefined; readonly fidelity?: PnlFidelity | undefined }): Promise<PnlSeries>
  /** Open interest of markets (at most 20), or the global figure without any. */
  openInterest(conditionIds?: string | readonly string[], options?: CallOptions): Promise<OpenInterestV2[]>
  /** Taker volume per market of events (at most 20 event ids). */
  liveVolume(eventIds: string | readonly string[], options?: CallOptions): Promise<LiveVolume>
}

/** @internal */
export function dataV2(ctx: ClientContext): DataV2 {
  return {
    trades: new TradesV2Query(ctx, { filter: {} }),
    leaderboard: new LeaderboardQuery(ctx, { filter: {} }),
    activity: (user) => new ActivityQuery(ctx, { filter: { user } }),
    positions: (anchor) => new PositionsQuery(ctx, { filter: anchor }),
    closedPositions: (user) => new PositionsQuery(ctx, { filter: { user, status: 'CLOSED' } }),
    holders: (condition) => new HoldersQuery(ctx, { filter: { condition } }),
    value: (user, o) => portfolioValue(ctx, user, o),
    pnl: (user, o) => pnlSeries(ctx, user, o),
    openInterest: (ids, o) => openInterestV2(ctx, ids, o),
    liveVolume: (ids, o) => liveVolume(ctx, ids, o),
  }
}
