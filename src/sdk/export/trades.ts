/**
 * The trades export: every trade of a market the trades service will give. On the Data API v2 (tried first) that is
 * one cursor walk with no depth cap (trades-v2.ts). Where v2 answers 404, or `api: 'v1'` is asked, the v1 walk
 * below runs instead: v1 lists newest first and refuses offsets past 10,000, so one walk reaches only the newest
 * ~10,000. The export walks each side on its own;
 * a side that reaches the cap is split again by wallet (the service filters on `user`): the wallets most active in
 * what was reached are walked for the older trades. What still could not be reached is reported, never dropped
 * silently. Rows come in the order reached (side by side, then wallet by wallet), each trade once.
 */
import type { Market } from '../catalog/model.js'
import type { MarketClient } from '../client.js'
import { MAX_TRADES_OFFSET, type Trade } from '../data/trades.js'
import { MarketError, MarketUsageError } from '../errors.js'
import { resolveConditionId } from './resolve.js'
import { startV2, stepV2, tradeRow, type TradesV2State } from './trades-v2.js'
import type { Completeness, Step, Unreached, Walk } from './walk.js'

/** Which trades API an export reads: v2 with v1 where v2 answers 404 (`auto`, the default), or only one of them. */
export type TradesApi = 'auto' | 'v1' | 'v2'

/** Options of {@link tradesExport}. */
export interface TradesExportOptions {
  /** Only trades at or after this time (a Date or unix seconds). */
  readonly since?: Date | number | undefined
  /** Trades asked for per request (default 500; the service may answer fewer). */
  readonly pageSize?: number | undefined
  /** v1 only: how many wallets a capped side is split into at most (the most active first; default 20). */
  readonly walletSplits?: number | undefined
  /** Which API to read (default `auto`: v2, and v1 where v2 answers 404). */
  readonly api?: TradesApi | undefined
}

type SideName = 'buy' | 'sell'

/** One walk of the export: a side, or a side and a wallet. */
interface Part {
  readonly side: SideName
  readonly user: string | null
}

/** What the walk of one side learned: where the cap stopped it, and who traded in what it reached. */
interface SideInfo {
  reached: number
  /** Oldest time reached, and the keys of the trades of that second (the wallet walks must not repeat them). */
  edge: { t: number; keys: string[] } | null
  capped: boolean
  wallets: Record<string, number>
  /** Rows the wallet walks found beyond the cap. */
  recovered: number
  walletsWalked: number
}

/** The state of a v1 trades export between steps (a checkpoint written before v2 has no `api`: it is this). */
export interface TradesV1State {
  /** Which walk this state is of (absent in a checkpoint written before v2 was read). */
  readonly api?: 'v1'
  /** Why v1 is read, when it is a fallback from v2. */
  readonly fallback?: string
  readonly parts: readonly Part[]
  readonly part: number
  readonly offset: number
  /** Rows written by the current part. */
  readonly partRows: number
  readonly steps: number
  readonly sides: Readonly<Record<SideName, SideInfo>>
  /** Wallet walks that reached the cap themselves. */
  readonly walletsCapped: readonly Unreached[]
}

/** The state of a trades export between steps: a v2 walk, or the v1 one. */
export type TradesState = TradesV1State | TradesV2State

const COLUMNS = ['timestamp', 'time', 'side', 'outcome', 'outcomeIndex', 'price', 'size', 'tokenId', 'wallet', 'transactionHash', 'conditionId'] as const

const keyOf = (t: Trade): string => [t.transactionHash, t.tokenId, t.wallet, t.side, t.size, t.price].join('|')
const nameOf = (p: Part): string => `side=${p.side.toUpperCase()}${p.user === null ? '' : ` user=${p.user}`}`

/**
 * The walk of a trades export, for {@link runExport}; `target` is a market slug or a condition id.
 *
 * @example
 * ```ts
 * const summary = await runExport(await tradesExport(pm, 'will-1-fed-rate-cut-happen-in-2025'), { file: 't.csv', format: 'csv' })
 * for (const u of summary.unreached) console.warn(`${u.part}: ${u.reason}`)
 * ```
 */
export async function tradesExport(pm: MarketClient, target: string, options: TradesExportOptions = {}): Promise<Walk<TradesState>> {
  const since = options.since === undefined ? null : options.since instanceof Date ? Math.floor(options.since.getTime() / 1000) : options.since
  const pageSize = options.pageSize ?? 500
  const walletSplits = options.walletSplits ?? 20
  const api = options.api ?? 'auto'
  if (api !== 'v1' && (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000)) throw new MarketUsageError(`pageSize must be an integer from 1 to 1000, got ${pageSize}`)
  const { conditionId, market } = await resolveConditionId(pm, target)
  const side = (): SideInfo => ({ reached: 0, edge: null, capped: false, wallets: {}, recovered: 0, walletsWalked: 0 })
  const startV1 = (fallback: string | undefined): TradesV1State => ({
    api: 'v1',
    ...(fallback === undefined ? {} : { fallback }),
    parts: [{ side: 'buy', user: null }, { side: 'sell', user: null }],
    part: 0,
    offset: 0,
    partRows: 0,
    steps: 0,
    sides: { buy: side(), sell: side() },
    walletsCapped: [],
  })

  async function stepV1(state: TradesV1State, signal: AbortSignal | undefined): Promise<Step<TradesV1State>> {
    const part = state.parts[state.part] as Part
    const query = pm.trades.where({ market: conditionId, side: part.side, ...(part.user === null ? {} : { user: part.user }) })
    const page = await query.limit(pageSize).offset(state.offset).list({ signal })
    const sides = structuredClone(state.sides) as Record<SideName, SideInfo>
    const info = sides[part.side]
    const fresh = page.filter((t) => since === null || t.timestamp >= since)
    let kept: Trade[]
    if (part.user === null) {
      kept = fresh
      info.reached += kept.length
      for (const t of kept) {
        if (t.wallet !== null) info.wallets[t.wallet] = (info.wallets[t.wallet] ?? 0) + 1
        if (info.edge === null || t.timestamp < info.edge.t) info.edge = { t: t.timestamp, keys: [keyOf(t)] }
        else if (t.timestamp === info.edge.t) info.edge.keys.push(keyOf(t))
      }
    } else {
      // Only what the side's own walk could not reach: older than its edge, or of its edge second but not seen.
      const edge = info.edge
      kept = fresh.filter((t) => edge === null || t.timestamp < edge.t || (t.timestamp === edge.t && !edge.keys.includes(keyOf(t))))
      info.recovered += kept.length
    }
    const offset = state.offset + page.length
    const olderThanSince = since !== null && page.some((t) => t.timestamp < since)
    const ended = page.length === 0 || olderThanSince
    const capped = !ended && offset > MAX_TRADES_OFFSET
    let parts = state.parts
    let walletsCapped = state.walletsCapped
    if (capped && part.user === null) {
      info.capped = true
      const wallets = Object.entries(info.wallets).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)).slice(0, walletSplits)
      info.walletsWalked = wallets.length
      parts = [...parts, ...wallets.map(([user]) => ({ side: part.side, user }))]
    } else if (capped) {
      const oldest = page.at(-1)?.timestamp ?? null
      walletsCapped = [...walletsCapped, { part: nameOf(part), reached: state.partRows + kept.length, olderThan: oldest, reason: 'this wallet alone reached the offset cap (10,000)' }]
    }
    const rows = kept.map(tradeRow)
    const partDone = ended || capped
    const next: TradesV1State = {
      ...state,
      parts,
      part: partDone ? state.part + 1 : state.part,
      offset: partDone ? 0 : offset,
      partRows: partDone ? 0 : state.partRows + kept.length,
      steps: state.steps + 1,
      sides,
      walletsCapped,
    }
    return { rows, state: next, done: next.part >= parts.length }
  }

  function reportV1(state: TradesV1State) {
    const unreached: Unreached[] = (['buy', 'sell'] as const).flatMap((s) => {
      const info = state.sides[s]
      if (!info.capped) return []
      const others = Object.keys(info.wallets).length - info.walletsWalked
      const reason =
        `the offset cap (10,000) stopped the walk of this side; ${info.walletsWalked} wallet(s) walked on their own found ` +
        `${info.recovered.toLocaleString('en-US')} older trade(s); older trades of ${others} other wallet(s) seen, and of wallets not seen, ` +
        'could not be reached (the service gives no count of them)'
      return [{ part: `side=${s.toUpperCase()}`, reached: info.reached + info.recovered, olderThan: info.edge?.t ?? null, reason }]
    })
    const all = [...unreached, ...state.walletsCapped]
    const completeness: Completeness = {
      source: 'Data API v1 /trades',
      fallback: state.fallback ?? (api === 'v1' ? 'v1 was asked for (--api v1)' : null),
      reported: null,
      complete: all.length === 0,
      ended: since === null ? 'each side read to its last page or to the offset cap' : 'each side read back to --since or to the offset cap',
      holes: all.map((u) => `${u.part}: ${u.olderThan === null ? 'older trades' : `trades older than ${new Date(u.olderThan * 1000).toISOString()}`} not reached (${u.reason})`),
    }
    return { gaps: [], gapCount: 0, unreached: all, completeness }
  }

  function reportV2(state: TradesV2State) {
    const holes: string[] = []
    // The service's window: a market's feed goes back three years. A market known to be younger has no hole there.
    const opened = openedAt(market)
    const sinceInWindow = since !== null && since >= state.windowStart
    if (!sinceInWindow && (opened === null || opened < state.windowStart)) {
      const from = new Date(state.windowStart * 1000).toISOString()
      holes.push(
        opened === null
          ? `trades before ${from}, if the market has any (the catalog does not know when it opened): /v2/trades reads a market's last three years only`
          : `trades before ${from} (the market opened ${new Date(opened * 1000).toISOString()}): /v2/trades reads a market's last three years only`,
      )
    }
    if (state.ended === null) holes.push(`the walk stopped after page ${state.steps}: the pages after it were not read`)
    const completeness: Completeness = {
      source: 'Data API v2 /v2/trades',
      fallback: null,
      reported: null,
      complete: holes.length === 0,
      ended: state.ended === 'since' ? `read back to --since in ${state.steps} page(s)` : `read to the last page (${state.steps} page(s))`,
      holes,
    }
    return { gaps: [], gapCount: 0, unreached: [], completeness }
  }

  return {
    kind: 'trades',
    // \`api\` joins the job only when asked: a checkpoint of an export started before v2 existed still matches.
    job: { target, since, pageSize, walletSplits, ...(api === 'auto' ? {} : { api }) },
    columns: COLUMNS,
    timeColumn: 'timestamp',
    start: () => (api === 'v1' ? startV1(undefined) : startV2(Math.floor(Date.now() / 1000))),
    async step(state, signal): Promise<Step<TradesState>> {
      if (state.api !== 'v2') return stepV1(state, signal)
      try {
        return await stepV2(pm, conditionId, state, { since, pageSize }, signal)
      } catch (err) {
        // Only a first page may fall back: past it, v1 would write again what v2 already wrote.
        if (api === 'auto' && state.steps === 0 && err instanceof MarketError && err.status === 404) {
          return stepV1(startV1('the Data API v2 answered 404 for /v2/trades'), signal)
        }
        throw err
      }
    },
    progress: (state) =>
      state.api === 'v2'
        ? { done: state.steps, total: state.ended === null ? undefined : state.steps }
        : { done: state.steps, total: state.part >= state.parts.length ? state.steps : undefined },
    report: (state) => (state.api === 'v2' ? reportV2(state) : reportV1(state)),
  }
}

/** When a market opened, in unix seconds: the earlier of its creation and its start; `null` when unknown. */
function openedAt(market: Market | null): number | null {
  const times = [market?.createdAt, market?.startDate].flatMap((d) => (d === null || d === undefined ? [] : [Math.floor(d.getTime() / 1000)]))
  return times.length === 0 ? null : Math.min(...times)
}
