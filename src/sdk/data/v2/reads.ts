/** The single-answer Data API v2 reads (`{ data }`, no pagination): portfolio value, PnL series, open interest, live volume. */
import * as v from 'valibot'
import type { CallOptions, ClientContext } from '../../context.js'
import { MarketUsageError } from '../../errors.js'
import { num, toNumber } from '../../wire/fields.js'
import { V2LiveVolumeSchema, V2OpenInterestSchema, V2PnlSeriesSchema, V2ValueSchema, singleSchema } from '../../wire/data-v2.js'
import { idList, wallet } from './query.js'

/** A wallet's portfolio value in USDC (0 when it holds nothing). */
export interface PortfolioValue {
  readonly wallet: string
  readonly value: number
}

/** The window of a PnL series. */
export type PnlInterval = 'max' | 'all' | '1m' | '1w' | '1d' | '12h' | '6h'
/** The spacing of a PnL series' points. */
export type PnlFidelity = '1d' | '18h' | '12h' | '3h' | '1h'

/** One point of a PnL series: cumulative USDC; `null` where the service has no figure (never read as 0). */
export interface PnlPoint {
  /** Unix seconds. */
  readonly timestamp: number
  readonly realizedPnl: number
  readonly unrealizedPnl: number | null
  readonly fees: number | null
  /** Shares traded so far. */
  readonly volume: number | null
  readonly volumeUsdc: number | null
  readonly tradeCount: number | null
}

/** A wallet's cumulative PnL over time, oldest point first. */
export interface PnlSeries {
  readonly wallet: string
  readonly interval: string
  readonly fidelity: string
  readonly points: readonly PnlPoint[]
}

/** Open interest of one market in USDC; `conditionId` is `GLOBAL` for the whole service's figure. */
export interface OpenInterestV2 {
  readonly conditionId: string
  readonly value: number
}

/** Taker volume (shares) of the markets of events, largest first. */
export interface LiveVolume {
  readonly total: number
  readonly markets: readonly { readonly conditionId: string; readonly takerVolume: number }[]
}

const ValueSchema = v.pipe(singleSchema(V2ValueSchema), v.transform(({ data }): PortfolioValue => ({ wallet: data.proxy_wallet, value: num(data.value) })))

const PnlSchema = v.pipe(
  singleSchema(V2PnlSeriesSchema),
  v.transform(({ data }): PnlSeries => ({
    wallet: data.proxy_wallet,
    interval: data.interval,
    fidelity: data.fidelity,
    points: data.points.map((p) => ({
      timestamp: p.timestamp,
      realizedPnl: num(p.realized_pnl),
      unrealizedPnl: toNumber(p.unrealized_pnl),
      fees: toNumber(p.fees),
      volume: toNumber(p.volume),
      volumeUsdc: toNumber(p.volume_usdc),
      tradeCount: p.trade_count ?? null,
    })),
  })),
)

const OpenInterestSchema = v.pipe(
  singleSchema(V2OpenInterestSchema),
  v.transform(({ data }): OpenInterestV2[] => data.map((r) => ({ conditionId: r.condition_id, value: num(r.value) }))),
)

const LiveVolumeSchema = v.pipe(
  singleSchema(V2LiveVolumeSchema),
  v.transform(({ data }): LiveVolume => ({
    total: num(data.taker_volume_total),
    markets: data.conditions.map((c) => ({ conditionId: c.condition_id, takerVolume: num(c.taker_volume) })),
  })),
)

function required(name: string, user: string): string {
  const w = wallet(name, user)
  if (w === undefined) throw new MarketUsageError(`${name} is required`)
  return w
}

/** `/v2/value`: a wallet's portfolio value, optionally within some markets (at most 20). */
export async function portfolioValue(ctx: ClientContext, user: string, options: CallOptions & { readonly condition?: string | readonly string[] | undefined } = {}): Promise<PortfolioValue> {
  const query = { user: required('user', user), condition: idList('condition', options.condition) }
  return ctx.request({ service: 'data', path: '/v2/value', query, schema: ValueSchema, signal: options.signal })
}

/** `/v2/user-pnl`: a wallet's cumulative PnL series. */
export async function pnlSeries(
  ctx: ClientContext,
  user: string,
  options: CallOptions & { readonly interval?: PnlInterval | undefined; readonly fidelity?: PnlFidelity | undefined } = {},
): Promise<PnlSeries> {
  const query = { user: required('user', user), interval: options.interval, fidelity: options.fidelity }
  return ctx.request({ service: 'data', path: '/v2/user-pnl', query, schema: PnlSchema, signal: options.signal })
}

/** `/v2/oi`: open interest of markets (at most 20), or the global figure (one `GLOBAL` row) without any. */
export async function openInterestV2(ctx: ClientContext, conditionIds: string | readonly string[] | undefined, options: CallOptions = {}): Promise<OpenInterestV2[]> {
  const query = { condition: idList('condition', conditionIds) }
  return ctx.request({ service: 'data', path: '/v2/oi', query, schema: OpenInterestSchema, signal: options.signal })
}

/** `/v2/live-volume`: taker volume per market of events (at most 20 event ids). */
export async function liveVolume(ctx: ClientContext, eventIds: string | readonly string[], options: CallOptions = {}): Promise<LiveVolume> {
  const query = { event_id: idList('eventId', eventIds) }
  return ctx.request({ service: 'data', path: '/v2/live-volume', query, schema: LiveVolumeSchema, signal: options.signal })
}
