/** `hookpilot market book | history | trades | oi`: one market's order book, price chart, trades, open interest. */
import type { Interval, Level, MarketClient, MarketHandle, Side, TokenHandle, Trade } from '../../sdk/index.js'
import { str, type MarketCommand, type Parsed } from './command.js'
import { chart } from './chart.js'
import { CliUsageError, count, oneOf, positional } from './options.js'
import { writeJson } from './output.js'
import { collect } from './progress.js'
import { pct, shares, table, when } from './table.js'

const INTERVALS: readonly Interval[] = ['1h', '6h', '1d', '1w', '1m', 'max', 'all']
const OUTCOME_HELP = '  --outcome <o>     outcome label or index (default 0, the Yes outcome)\n'

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
  return isTokenId(arg) ? pm.token(arg) : (await marketOf(pm, arg)).outcome(outcome)
}

const levels = (rows: readonly Level[], depth: number) =>
  table(rows.slice(0, depth), [
    { header: 'PRICE', cell: (l: Level) => pct(l.price), align: 'right' },
    { header: 'SIZE', cell: (l: Level) => shares(l.size), align: 'right' },
  ])

/** `hookpilot market book`. */
export const book: MarketCommand = {
  summary: "show a token's order book (by token id, or a market slug's outcome)",
  usage: 'hookpilot market book <token|slug> [--outcome Yes|No|index] [--depth n]',
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
  summary: 'chart the price history of a market (its Yes outcome) or a token',
  usage: 'hookpilot market history <slug|token> [--interval 1w] [--fidelity minutes] [--outcome o]',
  help: `Options:\n  --interval <i>    ${INTERVALS.join(', ')} (default 1w; 1m is one month)\n  --fidelity <m>    bucket size in minutes (at least 5 for 1w, 10 for 1m)\n${OUTCOME_HELP}`,
  options: { interval: { type: 'string' }, fidelity: { type: 'string' }, outcome: { type: 'string' } },
  prepare(parsed) {
    const arg = positional(parsed.positionals, 'slug|token', this.usage)
    const interval = oneOf('interval', str(parsed, 'interval'), INTERVALS) ?? '1w'
    const fidelity = str(parsed, 'fidelity') === undefined ? undefined : count('fidelity', str(parsed, 'fidelity'), 60, 10_080)
    return async ({ pm, io, json }) => {
      const points = await (await tokenOf(pm, arg, outcomeOf(parsed))).history({ interval, fidelity })
      if (json) return writeJson(io, points)
      const last = points[points.length - 1]
      io.stdout.write(`${arg}: ${interval}, ${points.length} points, last ${pct(last?.p)}\n\n${chart(points)}`)
    }
  },
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
