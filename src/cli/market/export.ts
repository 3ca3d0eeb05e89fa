/**
 * `hookpilot market export`: history, trades and catalog lists into a file, resumable, built on
 * `hookpilot/sdk/export`. A progress bar on a terminal, one plain line a step otherwise; a summary at the end.
 */
import { mkdir } from 'node:fs/promises'
import { isAbsolute, join } from 'node:path'
import type { EventOrderField, MarketClient, MarketOrderField } from '../../sdk/index.js'
import {
  EXPORT_FORMATS,
  catalogExport,
  historyExport,
  runExport,
  tradesExport,
  type ExportProgress,
  type Completeness,
  type ExportSummary,
  type TradesApi,
  type Unreached,
  type Walk,
} from '../../sdk/export/index.js'
import { flag, str, type MarketCommand, type Parsed } from './command.js'
import { CliUsageError, count, instant, oneOf } from './options.js'
import { writeJson } from './output.js'
import { exportProgress } from './export-progress.js'

/** What can be exported, and how each one's walk is made from the arguments. */
const KINDS: Readonly<Record<string, (parsed: Parsed, target: string | undefined) => (pm: MarketClient) => Promise<Walk<unknown>>>> = {
  history(parsed, target) {
    const since = instant('since', str(parsed, 'since'))
    if (target === undefined || since === undefined) throw new CliUsageError('history needs <slug|token> and --since: usage: ' + USAGE)
    const until = instant('until', str(parsed, 'until'))
    if (until !== undefined && until <= since) throw new CliUsageError('--since must be before --until')
    const fidelity = count('fidelity', str(parsed, 'fidelity'), 60, 1440 * 30)
    return (pm) => historyExport(pm, target, { since, until, fidelity })
  },
  trades(parsed, target) {
    if (target === undefined) throw new CliUsageError('trades needs <slug|conditionId>: usage: ' + USAGE)
    const since = instant('since', str(parsed, 'since'))
    const api = oneOf('api', str(parsed, 'api'), TRADES_APIS) ?? 'auto'
    return (pm) => tradesExport(pm, target, { since, api })
  },
  markets(parsed, target) {
    noTarget('markets', target)
    const order = oneOf('order', str(parsed, 'order'), MARKET_ORDER)
    const filter = catalogFilter(parsed)
    return async (pm) => catalogExport(pm, { kind: 'markets', filter, ...(order === undefined ? {} : { order: [order] }), direction: direction(parsed) })
  },
  events(parsed, target) {
    noTarget('events', target)
    const order = oneOf('order', str(parsed, 'order'), EVENT_ORDER)
    const filter = catalogFilter(parsed)
    return async (pm) => catalogExport(pm, { kind: 'events', filter, ...(order === undefined ? {} : { order: [order] }), direction: direction(parsed) })
  },
}

const TRADES_APIS: readonly TradesApi[] = ['auto', 'v2', 'v1']
const MARKET_ORDER: readonly MarketOrderField[] = ['volume', 'volume24hr', 'liquidity', 'createdAt', 'updatedAt', 'startDate', 'endDate']
const EVENT_ORDER: readonly EventOrderField[] = ['volume', 'volume24hr', 'liquidity', 'openInterest', 'createdAt', 'updatedAt', 'startDate', 'endDate']

function noTarget(kind: string, target: string | undefined): void {
  if (target !== undefined) throw new CliUsageError(`${kind} takes no <target> but filters (--closed, --tag, ...): got "${target}"`)
}

/** The catalog's filters from the flags; `--closed` is sent either way, as the events list needs it said. */
function catalogFilter(parsed: Parsed) {
  const active = flag(parsed, 'active')
  const tag = str(parsed, 'tag')
  return { closed: flag(parsed, 'closed') ?? false, ...(active === undefined ? {} : { active }), ...(tag === undefined ? {} : { tag }) }
}

const direction = (parsed: Parsed): 'asc' | 'desc' => (flag(parsed, 'asc') ? 'asc' : 'desc')

const USAGE = 'hookpilot market export history|trades|markets|events [<slug|token|conditionId>] [options] [--format jsonl|csv] [--out DIR]'

/** `hookpilot market export`. */
export const exportCommand: MarketCommand = {
  summary: 'export history, trades or catalog lists to a file (resumable)',
  usage: USAGE,
  help: `Exports:
  history <slug|token>   every outcome's price history (one token's, given a token id), in windows of 15 days
                         (the most the service answers), merged and de-duplicated
  trades <slug|conditionId>
                         every trade the service will give, newest first: on the Data API v2, one cursor walk
                         with no depth cap; on v1 (where v2 answers 404, or --api v1), each side walked on its
                         own and a side that reaches the offset cap (10,000) split by wallet. Ends with a
                         completeness line: the rows, the source, and every hole named
  markets | events       the catalog's list with its filters, through the keyset list

Options:
  --since <date>         history: start (required); trades: only trades from then on. A date such as 2026-05-01,
                         a time such as 2026-05-01T12:00Z, or unix seconds
  --api auto|v2|v1       trades: the Data API to read (default auto: v2, and v1 where v2 answers 404)
  --until <date>         history: end (default now, fixed when the export starts)
  --fidelity <minutes>   history: minutes between points (default 60)
  --closed               markets, events: resolved ones (default open ones)
  --active, --tag <slug> markets, events: the catalog's filters
  --order <field>        markets, events: sort field (volume, volume24hr, liquidity, createdAt, endDate, ...)
  --asc                  markets, events: ascending (default descending)
  --format jsonl|csv     JSON lines (default), or CSV with a header: numbers bare, text (ids too) quoted
  --out <dir>            directory of the output file (default the current one; made if missing)

Resumable: a checkpoint <file>.checkpoint.json is kept beside the output while it runs. Run the same command again
after an interruption and it goes on where it stopped; the file ends equal to an uninterrupted export's. The
summary gives the rows, their time span, the gaps (history points further apart than two steps), and what could not
be reached (trades past the offset cap).
`,
  options: {
    since: { type: 'string' },
    api: { type: 'string' },
    until: { type: 'string' },
    fidelity: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
    closed: { type: 'boolean' },
    active: { type: 'boolean' },
    tag: { type: 'string' },
    order: { type: 'string' },
    asc: { type: 'boolean' },
  },
  prepare(parsed) {
    const [kind, target, extra] = parsed.positionals
    if (kind === undefined) throw new CliUsageError(`missing what to export (${Object.keys(KINDS).join(', ')}): usage: ${USAGE}`)
    const make = Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined
    if (make === undefined) throw new CliUsageError(`cannot export "${kind}": use one of ${Object.keys(KINDS).join(', ')}`)
    if (extra !== undefined) throw new CliUsageError(`unexpected argument "${extra}": usage: ${USAGE}`)
    const walkOf = make(parsed, target)
    const format = oneOf('format', str(parsed, 'format'), EXPORT_FORMATS) ?? 'jsonl'
    const out = str(parsed, 'out') ?? '.'
    return async ({ pm, io, json }) => {
      const walk = await walkOf(pm)
      const dir = isAbsolute(out) ? out : join(io.cwd, out)
      await mkdir(dir, { recursive: true })
      const file = join(dir, fileName(walk, format))
      const progress = exportProgress(io, walk.kind)
      // Ctrl-C ends the export after the step in flight is dropped, its checkpoint whole (no .tmp left), and says
      // how to go on; a second Ctrl-C kills at once (the default, once this handler is gone).
      const interrupt = new AbortController()
      const stop = (): void => interrupt.abort()
      process.once('SIGINT', stop)
      let rows = 0
      let summary: ExportSummary
      try {
        summary = await runExport(walk, {
          file, format, signal: interrupt.signal,
          onProgress: (p: ExportProgress) => {
            rows = p.rows
            progress.update(p)
          },
        })
      } catch (err) {
        if (!interrupt.signal.aborted) throw err
        throw new ExportInterrupted(`interrupted: ${rows.toLocaleString('en-US')} rows kept in ${file}; run the same command again to resume from its checkpoint`)
      } finally {
        process.off('SIGINT', stop)
        progress.stop()
      }
      if (json) return writeJson(io, summary)
      io.stdout.write(describe(summary))
    }
  },
}

/** An export stopped by Ctrl-C: its file and checkpoint are kept for a resume. */
export class ExportInterrupted extends Error {
  override readonly name = 'ExportInterrupted'
}

/** `history-<slug>-60m.jsonl`: what, of what, how; a name that stays the same so a re-run finds its checkpoint. */
function fileName(walk: Walk<unknown>, format: string): string {
  const parts = [walk.kind, walk.job['target'], walk.job['fidelity'] === undefined ? undefined : `${String(walk.job['fidelity'])}m`]
  const name = parts.filter((p) => p !== undefined && p !== null).map((p) => String(p).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80))
  return `${name.join('-')}.${format}`
}

const day = (t: number): string => new Date(t * 1000).toISOString().slice(0, 16).replace('T', ' ')

function describe(s: ExportSummary): string {
  const lines = [`Exported ${s.rows.toLocaleString('en-US')} rows to ${s.file}${s.resumed ? ' (resumed from its checkpoint)' : ''}`]
  if (s.from !== null && s.to !== null) lines.push(`Time span: ${day(s.from)} to ${day(s.to)} UTC`)
  if (s.gapCount === 0) lines.push('Gaps: none')
  else {
    lines.push(`Gaps: ${s.gapCount}${s.gapCount > s.gaps.length ? ` (the first ${s.gaps.length} listed)` : ''}`)
    for (const g of s.gaps) lines.push(`  ${day(g.from)} to ${day(g.to)} UTC  ${g.series}`)
  }
  for (const u of s.unreached) lines.push(unreachedLine(u))
  if (s.completeness !== undefined) lines.push(...completenessLines(s.rows, s.completeness))
  return `${lines.join('\n')}\n`
}

/**
 * The last lines of a trades export: the rows against the service's total where it reports one (neither trades API
 * does, and the line says so rather than imply a check), how the walk ended, and each hole on a line of its own.
 */
export function completenessLines(rows: number, c: Completeness): string[] {
  const against = c.reported === null ? 'the service reports no total to check against' : `the service reports ${c.reported.toLocaleString('en-US')}`
  const via = c.fallback === null ? c.source : `${c.source} (${c.fallback})`
  const head = c.complete
    ? `Complete: ${rows.toLocaleString('en-US')} rows from ${via}, ${c.ended}; ${against}; no holes`
    : `Incomplete: ${rows.toLocaleString('en-US')} rows from ${via}, ${c.ended}; ${against}; ${c.holes.length} hole(s):`
  return [head, ...c.holes.map((h) => `  hole: ${h}`)]
}

/**
 * One part the walk could not finish. `reached` counts the rows the part added: a wallet whose trades up to the
 * cap were all in the export already (its side's walk had them) adds none, and "(0 reached)" read as if the
 * wallet had reached nothing.
 */
export function unreachedLine(u: Unreached): string {
  const got = u.reached === 0 ? 'nothing new: the trades it reached were in the export already' : `${u.reached.toLocaleString('en-US')} reached`
  return `Not reached: ${u.part}: ${u.reason} (${got}${u.olderThan === null ? '' : `; older than ${day(u.olderThan)} UTC left out`})`
}
