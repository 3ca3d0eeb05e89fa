/** `hookpilot market book | history | trades | oi`: one market's order book, price chart, trades, open interest. */
import type { HistoryParams, Interval, Level, Market, MarketClient, MarketHandle, Side, TokenHandle, Trade } from '../../sdk/index.js'
import { str, type MarketCommand, type Parsed } from './command.js'
import { chart } from './chart.js'
import { CliUsageError, count, instant, oneOf, positional } from './options.js'
import { writeJson } from './output.js'
import { collect } from './progress.js'
import { pct, shares, table, when } from './table.js'

const INTERVALS: readonly Interval[] = ['1h', '6h', '1d', '1w', '1m', 'max', 'all']
/** The longest `startTs`/`endTs` window the price-history service answers (longer ones are a 400). */
const MAX_WINDOW_DAYS = 15
const DAY = 86_400
const OUTCOME_HELP = '  --outcome <o>     outcome label or index (default 0: Yes on a binary market, the first outcome otherwise)\n'

/** A token id is a long decimal string; anything else is taken as a market slug. */
const isTokenId = (s: string): boolean => /^\d{10,}$/.test(s)

function outcomeOf(parsed: Parsed): number | string {
  const o = str(parsed, 'outcome')
  if (o === undefined) return 0
  return /^\d+$/.test(o) ? Number(o) : o
}

async function marketOf(pm: MarketClient, slug: string): Promise<MarketHandle> {
  return pm.market(await pm.markets.bySlug(slug))
}

async function tokenOf(pm: MarketClient, arg: string, outcome: number | string): Promise<TokenHandle> {
  return (await tokenAndMarket(pm, arg, outcome)).token
}

/** The token of `arg`, and its catalog market when `arg` is a slug (a bare token id says nothing about its market). */
async function tokenAndMarket(pm: MarketClient, arg: string, outcome: number | string): Promise<{ token: TokenHandle; market?: Market }> {
  if (isTokenId(arg)) return { token: pm.token(arg) }
  const handle = await marketOf(pm, arg)
  return { token: handle.outcome(outcome), market: handle.market }
}

const levels = (rows: readonly Level[], depth: number) =>
  table(rows.slice(0, depth), [
    { header: 'PRICE', cell: (l: Level) => pct(l.price), align: 'right' },
    { header: 'SIZE', cell: (l: Level) => shares(l.size), align: 'right' },
  ])

/** `hookpilot market book`. */
export const book: MarketCommand = {
  summary: "show a token's order book (by token id, or a market slug's outcome)",
  usage: 'hookpilot market book <token|slug> [--outcome label|index] [--depth n]',
  help: `Options:\n${OUTCOME_HELP}  --depth <n>       levels per side (default 10)\n`,
  options: { outcome: { type: 'string' }, depth: { type: 'string' } },
  prepare(parsed) {
    const arg = positional(parsed.positionals, 'token|slug', this.usage)
    const depth = count('depth', str(parsed, 'depth'), 10, 500)
    return async ({ pm, io, json }) => {
      const b = await (await tokenOf(pm, arg, outcomeOf(parsed))).book()
      if (json) return writeJson(io, b)
      const mid = b.bids[0] && b.asks[0] ? (b.bids[0].price + b.asks[0].price) / 2 : null
      io.stdout.write(`Token ${b.tokenId}\nMidpoint ${pct(mid)}  last trade ${pct(b.lastTradePrice)}  tick ${b.tickSize ?? '-'}\n\n`)
      io.stdout.write(`BIDS (best first)\n${levels(b.bids, depth)}\nASKS (best first)\n${levels(b.asks, depth)}`)
    }
  },
}

/** `hookpilot market history`. */
export const history: MarketCommand = {
  summary: 'chart the price history of a market (its first outcome, Yes on a binary market) or a token',
  usage: 'hookpilot market history <slug|token> [--interval 1w | --start date --end date] [--fidelity minutes] [--outcome o]',
  help: `Options:
  --interval <i>    ${INTERVALS.join(', ')} (default 1w; 1m is one month)
  --start <t>       start of a window: a date (2026-05-01, 2026-05-01T12:00Z; UTC unless an offset is given) or unix seconds
  --end <t>         end of the window (default: ${MAX_WINDOW_DAYS} days after --start, or now if sooner); with --end alone the window is the ${MAX_WINDOW_DAYS} days before it
                    a window is at most ${MAX_WINDOW_DAYS} days (the service's limit) and cannot be combined with --interval;
                    resolved markets have no history for max/all, so ask them for a window
  --fidelity <m>    bucket size in minutes (at least 5 for 1w, 10 for 1m)
${OUTCOME_HELP}`,
  options: { interval: { type: 'string' }, start: { type: 'string' }, end: { type: 'string' }, fidelity: { type: 'string' }, outcome: { type: 'string' } },
  prepare(parsed) {
    const arg = positional(parsed.positionals, 'slug|token', this.usage)
    const interval = oneOf('interval', str(parsed, 'interval'), INTERVALS)
    const window = historyWindow(instant('start', str(parsed, 'start')), instant('end', str(parsed, 'end')))
    if (window !== undefined && interval !== undefined) {
      throw new CliUsageError('give either --interval or a --start/--end window, not both')
    }
    const fidelity = str(parsed, 'fidelity') === undefined ? undefined : count('fidelity', str(parsed, 'fidelity'), 60, 10_080)
    const params: HistoryParams = window ? { ...window, fidelity } : { interval: interval ?? '1w', fidelity }
    const span = window ? `${when(window.start)} to ${when(window.end)} UTC` : (interval ?? '1w')
    return async ({ pm, io, json }) => {
      const { token, market } = await tokenAndMarket(pm, arg, outcomeOf(parsed))
      const points = await token.history(params)
      if (json) return writeJson(io, points)
      const last = points[points.length - 1]
      io.stdout.write(`${arg}: ${span}, ${points.length} points, last ${pct(last?.p)}\n\n`)
      io.stdout.write(points.length > 0 ? chart(points) : `${emptyHistoryHint(window !== undefined, market)}\n`)
    }
  },
}

/** The `startTs`/`endTs` window of `--start`/`--end` (unix seconds), filling in a missing side; checked against the service's limit. */
function historyWindow(start: number | undefined, end: number | undefined): { start: number; end: number } | undefined {
  if (start === undefined && end === undefined) return undefined
  const to = end ?? Math.min((start ?? 0) + MAX_WINDOW_DAYS * DAY, Math.floor(Date.now() / 1000))
  const from = start ?? to - MAX_WINDOW_DAYS * DAY
  if (from >= to) {
    throw new CliUsageError(end === undefined ? `--start (${when(from)} UTC) is in the future` : `--start (${when(from)}) must be before --end (${when(to)})`)
  }
  if (to - from > MAX_WINDOW_DAYS * DAY) {
    const days = Math.round(((to - from) / DAY) * 10) / 10
    throw new CliUsageError(
      `the window from --start to --end is ${days} days; the price-history service answers at most ${MAX_WINDOW_DAYS} days per request`,
    )
  }
  return { start: from, end: to }
}

const day = (seconds: number): string => when(seconds).slice(0, 10)

/** What to say instead of an empty chart; a resolved market's whole-life history is empty, its windows are not. */
function emptyHistoryHint(windowed: boolean, market: Market | undefined): string {
  if (windowed) return '(no history in this window: try another --start/--end)'
  if (market?.closed) {
    const close = market.closedTime ?? market.endDate
    // The 15 days up to the midnight after the market closed.
    const end = close === null ? undefined : Math.ceil(close.getTime() / 1000 / DAY) * DAY
    const example =
      end === undefined ? '--start <date> --end <date>' : `--start ${day(end - MAX_WINDOW_DAYS * DAY)} --end ${day(end)}`
    return `(no history: this market is resolved, and the service has none for it over an --interval; ask for a window of up to ${MAX_WINDOW_DAYS} days, e.g. ${example})`
  }
  return '(no history for this interval: try another --interval, or --start/--end for a resolved market)'
}

/** `hookpilot market trades`. */
export const trades: MarketCommand = {
  summary: "list a market's recent trades",
  usage: 'hookpilot market trades <slug> [--side buy|sell] [--limit n]',
  help: 'Options:\n  --side <s>        only buy or sell trades\n  --limit <n>       how many (default 20; several pages are fetched when needed)\n',
  options: { side: { type: 'string' }, limit: { type: 'string' } },
  prepare(parsed) {
    const slug = slugArg(parsed, this.usage)
    const side = oneOf<Side>('side', str(parsed, 'side'), ['buy', 'sell'])
    const limit = count('limit', str(parsed, 'limit'), 20)
    return async ({ pm, io, json }) => {
      const query = (await marketOf(pm, slug)).trades().where({ side }).limit(Math.min(limit, 100))
      const items = await collect(io, 'fetching trades', query, limit)
      if (json) return writeJson(io, items)
      io.stdout.write(
        table(items, [
          { header: 'TIME (UTC)', cell: (t: Trade) => when(t.timestamp) },
          { header: 'SIDE', cell: (t: Trade) => t.side.toUpperCase() },
          { header: 'OUTCOME', cell: (t: Trade) => t.outcome ?? '-' },
          { header: 'PRICE', cell: (t: Trade) => pct(t.price), align: 'right' },
          { header: 'SHARES', cell: (t: Trade) => shares(t.size), align: 'right' },
          { header: 'TRADER', cell: (t: Trade) => t.name ?? t.pseudonym ?? t.wallet ?? '-', max: 20 },
        ]),
      )
    }
  },
}

/** `hookpilot market oi`. */
export const oi: MarketCommand = {
  summary: "show a market's open interest",
  usage: 'hookpilot market oi <slug>',
  help: '',
  options: {},
  prepare(parsed) {
    const slug = slugArg(parsed, this.usage)
    return async ({ pm, io, json }) => {
      const market = await marketOf(pm, slug)
      const value = await market.openInterest()
      if (json) return writeJson(io, { market: market.market.conditionId, slug, openInterest: value })
      const amount = value === null ? 'unknown' : `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
      io.stdout.write(`${market.market.question}\nOpen interest: ${amount}\n`)
    }
  },
}

function slugArg(parsed: Parsed, usage: string): string {
  const slug = positional(parsed.positionals, 'slug', usage)
  if (isTokenId(slug)) throw new CliUsageError(`"${slug}" looks like a token id; give the market's slug instead`)
  return slug
}
