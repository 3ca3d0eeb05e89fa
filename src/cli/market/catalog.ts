/** `hookpilot market search | events | markets`: the catalog, as tables or JSON. */
import type { Event, EventOrderField, Market, MarketOrderField } from '../../sdk/index.js'
import { flag, str, type MarketCommand, type Parsed } from './command.js'
import { count, noPositionals, oneOf, positional } from './options.js'
import { writeJson } from './output.js'
import { collect } from './progress.js'
import { pct, table, usd, when } from './table.js'

const MARKET_ORDER: readonly MarketOrderField[] = ['volume', 'volume24hr', 'liquidity', 'createdAt', 'updatedAt', 'startDate', 'endDate']
const EVENT_ORDER: readonly EventOrderField[] = ['volume', 'volume24hr', 'liquidity', 'openInterest', 'createdAt', 'updatedAt', 'startDate', 'endDate']
const LIST_OPTIONS = {
  active: { type: 'boolean' },
  closed: { type: 'boolean' },
  tag: { type: 'string' },
  order: { type: 'string' },
  asc: { type: 'boolean' },
  limit: { type: 'string' },
} as const

const listHelp = (what: string, fields: readonly string[]): string => `Options:
  --active          only active ${what}
  --closed          only closed ${what} (default: open ones)
  --tag <slug>      only ${what} with this tag (see "search <text>" for tags)
  --order <field>   sort by ${fields.join(', ')} (descending; add --asc)
  --limit <n>       how many to show (default 20; several pages are fetched when needed)
`

function listFilter(parsed: Parsed) {
  return { active: flag(parsed, 'active'), closed: flag(parsed, 'closed') ?? false, tag: str(parsed, 'tag') }
}

const marketRow = [
  { header: 'QUESTION', cell: (m: Market) => m.question, max: 56 },
  { header: 'YES', cell: (m: Market) => pct(m.outcomes[0]?.price), align: 'right' as const },
  { header: 'OUTCOMES', cell: (m: Market) => String(m.outcomes.length), align: 'right' as const },
  { header: 'VOLUME', cell: (m: Market) => usd(m.volume), align: 'right' as const },
  { header: 'STATE', cell: (m: Market) => (m.closed ? 'closed' : m.active ? 'open' : 'inactive') },
  { header: 'SLUG', cell: (m: Market) => m.slug, max: 48 },
]

const eventRow = [
  { header: 'TITLE', cell: (e: Event) => e.title, max: 50 },
  { header: 'MARKETS', cell: (e: Event) => String(e.markets.length), align: 'right' as const },
  { header: 'VOLUME', cell: (e: Event) => usd(e.volume), align: 'right' as const },
  { header: 'ENDS', cell: (e: Event) => when(e.endDate).slice(0, 10) },
  { header: 'SLUG', cell: (e: Event) => e.slug, max: 48 },
]

export const search: MarketCommand = {
  summary: 'search events and tags by text',
  usage: 'hookpilot market search <text> [--status active|closed|all] [--limit n]',
  help: 'Options:\n  --status <s>      active, closed or all events (default all)\n  --limit <n>       events per page (default 10)\n',
  options: { status: { type: 'string' }, limit: { type: 'string' } },
  prepare(parsed) {
    const text = positional(parsed.positionals, 'text', this.usage)
    const status = oneOf('status', str(parsed, 'status'), ['active', 'closed', 'all'] as const)
    const limit = count('limit', str(parsed, 'limit'), 10, 50)
    return async ({ pm, io, json }) => {
      const query = pm.search(text).limitPerType(limit)
      const result = await (status ? query.status(status) : query).list()
      if (json) return writeJson(io, result)
      io.stdout.write(`${result.totalResults ?? result.events.length} events match "${text}"\n\n`)
      io.stdout.write(table(result.events, eventRow))
      if (result.tags.length > 0) io.stdout.write(`\nTags: ${result.tags.map((t) => t.slug).join(', ')}\n`)
    }
  },
}

export const events: MarketCommand = {
  summary: 'list events (open by default)',
  usage: 'hookpilot market events [--active] [--closed] [--tag slug] [--order field] [--limit n]',
  help: listHelp('events', EVENT_ORDER),
  options: LIST_OPTIONS,
  prepare(parsed) {
    noPositionals(parsed.positionals, this.usage)
    const order = oneOf('order', str(parsed, 'order'), EVENT_ORDER)
    const limit = count('limit', str(parsed, 'limit'), 20)
    return async ({ pm, io, json }) => {
      const base = pm.events.where(listFilter(parsed))
      const query = order ? base.orderBy(order, flag(parsed, 'asc') ? 'asc' : 'desc') : base
      const items = await collect(io, 'fetching events', query.limit(Math.min(limit, 100)), limit)
      json ? writeJson(io, items) : io.stdout.write(table(items, eventRow))
    }
  },
}

export const markets: MarketCommand = {
  summary: 'list markets (open by default)',
  usage: 'hookpilot market markets [--active] [--closed] [--tag slug] [--order field] [--limit n]',
  help: listHelp('markets', MARKET_ORDER),
  options: LIST_OPTIONS,
  prepare(parsed) {
    noPositionals(parsed.positionals, this.usage)
    const order = oneOf('order', str(parsed, 'order'), MARKET_ORDER)
    const limit = count('limit', str(parsed, 'limit'), 20)
    return async ({ pm, io, json }) => {
      const base = pm.markets.where(listFilter(parsed))
      const query = order ? base.orderBy(order, flag(parsed, 'asc') ? 'asc' : 'desc') : base
      const items = await collect(io, 'fetching markets', query.limit(Math.min(limit, 100)), limit)
      json ? writeJson(io, items) : io.stdout.write(table(items, marketRow))
    }
  },
}
