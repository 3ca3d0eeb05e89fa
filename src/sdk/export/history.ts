/**
 * The price-history export: every outcome of a market (or one token), from `since` to `until`, in windows the
 * service accepts (it refuses more than 15 days, and answers a resolved market's whole-life intervals with nothing),
 * merged by time and de-duplicated (a point on the edge of two windows comes back twice).
 */
import type { MarketClient } from '../client.js'
import { MarketUsageError } from '../errors.js'
import { resolveTokens } from './resolve.js'
import type { Gap, Row, Walk } from './walk.js'

/** The longest window the price-history service answers. */
export const MAX_HISTORY_WINDOW_DAYS = 15

/** Options of {@link historyExport}. */
export interface HistoryExportOptions {
  /** Start of the export (a Date or unix seconds). */
  readonly since: Date | number
  /** End of the export (default: now, fixed when the export starts, so a resumed one ends at the same point). */
  readonly until?: Date | number | undefined
  /** Minutes between points. */
  readonly fidelity: number
  /** Days per request, at most 15 (default 15). */
  readonly windowDays?: number | undefined
}

/** The state of a history export between steps. */
export interface HistoryState {
  readonly until: number
  /** Index of the next window. */
  readonly window: number
  /** The last point written per token (the edge point of the next window is a duplicate of it). */
  readonly last: Readonly<Record<string, number>>
  readonly gaps: readonly Gap[]
  readonly gapCount: number
}

const COLUMNS = ['t', 'time', 'outcome', 'outcomeIndex', 'p', 'tokenId', 'market'] as const
/** Gaps listed in the summary; more are only counted. */
const MAX_GAPS = 20

/**
 * The walk of a history export, for {@link runExport}; `target` is a market slug or a token id.
 *
 * @example
 * ```ts
 * const walk = await historyExport(pm, 'will-1-fed-rate-cut-happen-in-2025', { since: new Date('2026-01-01'), fidelity: 60 })
 * const summary = await runExport(walk, { file: 'history.jsonl', format: 'jsonl' })
 * ```
 */
export async function historyExport(pm: MarketClient, target: string, options: HistoryExportOptions): Promise<Walk<HistoryState>> {
  const since = seconds(options.since)
  const untilGiven = options.until === undefined ? null : seconds(options.until)
  const { fidelity } = options
  const windowDays = options.windowDays ?? MAX_HISTORY_WINDOW_DAYS
  if (!Number.isInteger(fidelity) || fidelity < 1) throw new MarketUsageError(`fidelity must be a whole number of minutes, got ${fidelity}`)
  if (!(windowDays > 0 && windowDays <= MAX_HISTORY_WINDOW_DAYS)) {
    throw new MarketUsageError(`windowDays must be more than 0 and at most ${MAX_HISTORY_WINDOW_DAYS}, got ${windowDays}`)
  }
  if (untilGiven !== null && untilGiven <= since) throw new MarketUsageError('until must be after since')
  const { market, tokens } = await resolveTokens(pm, target)
  const span = windowDays * 86_400
  const windows = (until: number): number => Math.ceil((until - since) / span)
  const slug = market?.slug ?? null
  // A gap: further apart than two steps (one missing point is noise in a real series).
  const gapAfter = 2 * fidelity * 60
  return {
    kind: 'history',
    job: { target, since, until: untilGiven, fidelity, windowDays },
    columns: COLUMNS,
    timeColumn: 't',
    start: () => ({ until: untilGiven ?? Math.floor(Date.now() / 1000), window: 0, last: {}, gaps: [], gapCount: 0 }),
    async step(state, signal) {
      const start = since + state.window * span
      const end = Math.min(state.until, start + span)
      const series = await Promise.all(tokens.map((t) => pm.token(t.tokenId).history({ start, end, fidelity }, { signal })))
      const rows: (Row & { t: number; outcomeIndex: number | null })[] = []
      const last = { ...state.last }
      const gaps = [...state.gaps]
      let gapCount = state.gapCount
      tokens.forEach((token, i) => {
        for (const { t, p } of series[i] ?? []) {
          const before = last[token.tokenId]
          if (before !== undefined && t <= before) continue
          if (before !== undefined && t - before > gapAfter) {
            gapCount++
            if (gaps.length < MAX_GAPS) gaps.push({ series: token.tokenId, from: before, to: t })
          }
          last[token.tokenId] = t
          rows.push({ t, time: new Date(t * 1000).toISOString(), outcome: token.outcome, outcomeIndex: token.index, p, tokenId: token.tokenId, market: slug })
        }
      })
      // Outcomes merged by time, in outcome order at equal times.
      rows.sort((a, b) => a.t - b.t || (a.outcomeIndex ?? 0) - (b.outcomeIndex ?? 0))
      const next = { until: state.until, window: state.window + 1, last, gaps, gapCount }
      return { rows, state: next, done: next.window >= windows(state.until) }
    },
    progress: (state) => ({ done: state.window, total: windows(state.until) }),
    report: (state) => ({ gaps: state.gaps, gapCount: state.gapCount, unreached: [] }),
  }
}

function seconds(d: Date | number): number {
  return d instanceof Date ? Math.floor(d.getTime() / 1000) : d
}
