/** `hookpilot market search | events | markets`: the catalog, as tables or JSON. */
import type {
  CatalogFilter,
  CatalogQuery,
  Event,
  EventOrderField,
  Market,
  MarketClient,
  MarketOrderField,
} from '../../sdk/index.js'
import { flag, str, type MarketCommand } from './command.js'
import { count, noPositionals, oneOf, positional } from './options.js'
import { writeJson } from './output.js'
import { collect } from './progress.js'
import { pct, table, usd, when, type Column } from './table.js'

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

/** The first outcome with its price: `Yes 3.5%` on a binary market, `Alice 46%` on a multi-outcome one. */
function firstOutcome(m: Market): string {
  const first = m.outcomes[0]
  if (first === undefined) return '-'
  const label = first.label.length > 16 ? `${first.label.slice(0, 15)}…` : first.label
  return `${label} ${pct(first.price)}`
}

const marketRow: readonly Column<Market>[] = [
  { header: 'QUESTION', cell: (m) => m.question, max: 56 },
  // Not "YES": the first outcome of a multi-outcome market is a name.
  { header: 'FIRST OUTCOME', cell: firstOutcome },
  { header: 'OUTCOMES', cell: (m) => String(m.outcomes.length), align: 'right' },
  { header: 'VOLUME', cell: (m) => usd(m.volume), align: 'right' },
  { header: 'STATE', cell: (m) => (m.closed ? 'closed' : m.active ? 'open' : 'inactive') },
  { header: 'SLUG', cell: (m) => m.slug, max: 48 },
]

const eventRow: readonly Column<Event>[] = [
  { header: 'TITLE', cell: (e) => e.title, max: 50 },
  { header: 'MARKETS', cell: (e) => String(e.markets.length), align: 'right' },
  { header: 'VOLUME', cell: (e) => usd(e.volume), align: 'right' },
  { header: 'ENDS', cell: (e) => when(e.endDate).slice(0, 10) },
  { header: 'SLUG', cell: (e) => e.slug, max: 48 },
]

/** `hookpilot market search <text>`. */
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
      const result = await (status ? query.status(status) : query).page()
      if (json) return writeJson(io, result)
      io.stdout.write(`${result.totalResults ?? result.events.length} events match "${text}"\n\n`)
      io.stdout.write(table(result.events, eventRow))
      if (result.tags.length > 0) io.stdout.write(`\nTags: ${result.tags.map((t) => t.slug).join(', ')}\n`)
    }
  },
}

/** A catalog list subcommand: filters, `--order`/`--asc`, `--limit` across pages, a table or JSON. */
function listCommand<T, O extends string>(
  what: 'events' | 'markets',
  fields: readonly O[],
  columns: readonly Column<T>[],
  query: (pm: MarketClient, filter: CatalogFilter) => CatalogQuery<T, CatalogFilter, O>,
): MarketCommand {
  return {
    summary: `list ${what} (open by default)`,
    usage: `hookpilot market ${what} [--active] [--closed] [--tag slug] [--order field] [--asc] [--limit n]`,
    help: `Options:
  --active          only active ${what}
  --closed          only closed ${what} (default: open ones)
  --tag <slug>      only ${what} with this tag (see "search <text>" for tags)
  --order <field>   sort by ${fields.join(', ')} (descending; add --asc)
  --limit <n>       how many to show (default 20; several pages are fetched when needed)
`,
    options: LIST_OPTIONS,
    prepare(parsed) {
      noPositionals(parsed.positionals, this.usage)
      const order = oneOf('order', str(parsed, 'order'), fields)
      const limit = count('limit', str(parsed, 'limit'), 20)
      const filter = { active: flag(parsed, 'active'), closed: flag(parsed, 'closed') ?? false, tag: str(parsed, 'tag') }
      return async ({ pm, io, json }) => {
        const base = query(pm, filter)
        const sorted = order ? base.orderBy(order, flag(parsed, 'asc') ? 'asc' : 'desc') : base
        const items = await collect(io, `fetching ${what}`, sorted.limit(Math.min(limit, 100)), limit)
        if (json) writeJson(io, items)
        else io.stdout.write(table(items, columns))
      }
    },
  }
}

/** `hookpilot market events`. */
export const events = listCommand('events', EVENT_ORDER, eventRow, (pm, filter) => pm.events.where(filter))

/** `hookpilot market markets`. */
export const markets = listCommand('markets', MARKET_ORDER, marketRow, (pm, filter) => pm.markets.where(filter))
