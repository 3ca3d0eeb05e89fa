/**
 * The trades export: every trade of a market the trades service will give. The service lists newest first and
 * refuses offsets past 10,000, so one walk reaches only the newest ~10,000. The export walks each side on its own;
 * a side that reaches the cap is split again by wallet (the service filters on `user`): the wallets most active in
 * what was reached are walked for the older trades. What still could not be reached is reported, never dropped
 * silently. Rows come in the order reached (side by side, then wallet by wallet), each trade once.
 */
import type { MarketClient } from '../client.js'
import { MAX_TRADES_OFFSET, type Trade } from '../data/trades.js'
import { resolveConditionId } from './resolve.js'
import type { Row, Unreached, Walk } from './walk.js'

/** Options of {@link tradesExport}. */
export interface TradesExportOptions {
  /** Only trades at or after this time (a Date or unix seconds). */
  readonly since?: Date | number | undefined
  /** Trades asked for per request (default 500; the service may answer fewer). */
  readonly pageSize?: number | undefined
  /** How many wallets a capped side is split into at most (the most active first; default 20). */
  readonly walletSplits?: number | undefined
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

/** The state of a trades export between steps. */
export interface TradesState {
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
  const { conditionId } = await resolveConditionId(pm, target)
  const side = (): SideInfo => ({ reached: 0, edge: null, capped: false, wallets: {}, recovered: 0, walletsWalked: 0 })
  return {
    kind: 'trades',
    job: { target, since, pageSize, walletSplits },
    columns: COLUMNS,
    timeColumn: 'timestamp',
    start: () => ({
      parts: [{ side: 'buy', user: null }, { side: 'sell', user: null }],
      part: 0,
      offset: 0,
      partRows: 0,
      steps: 0,
      sides: { buy: side(), sell: side() },
      walletsCapped: [],
    }),
    async step(state, signal) {
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
      const rows = kept.map((t): Row => ({
        timestamp: t.timestamp,
        time: new Date(t.timestamp * 1000).toISOString(),
        side: t.side,
        outcome: t.outcome,
        outcomeIndex: t.outcomeIndex,
        price: t.price,
        size: t.size,
        tokenId: t.tokenId,
        wallet: t.wallet,
        transactionHash: t.transactionHash,
        conditionId: t.conditionId,
      }))
      const partDone = ended || capped
      const next: TradesState = {
        parts,
        part: partDone ? state.part + 1 : state.part,
        offset: partDone ? 0 : offset,
        partRows: partDone ? 0 : state.partRows + kept.length,
        steps: state.steps + 1,
        sides,
        walletsCapped,
      }
      return { rows, state: next, done: next.part >= parts.length }
    },
    progress: (state) => ({ done: state.steps, total: state.part >= state.parts.length ? state.steps : undefined }),
    report(state) {
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
      return { gaps: [], gapCount: 0, unreached: [...unreached, ...state.walletsCapped] }
    },
  }
}
