/**
 * The catalog export: every market or event matching the catalog's filters, walked with the keyset list (the
 * offset list is deprecated and refuses deep offsets), one page a step; the cursor is the whole state, so a resumed
 * export asks for the very page that comes next.
 */
import type { EventFilter, EventOrderField, MarketFilter, MarketOrderField, SortDirection } from '../catalog/filters.js'
import type { Event, Market } from '../catalog/model.js'
import type { MarketClient } from '../client.js'
import type { Row, Walk } from './walk.js'

/** Options of {@link catalogExport}, by what is exported. */
export type CatalogExportOptions =
  | { readonly kind: 'markets'; readonly filter?: MarketFilter; readonly order?: readonly MarketOrderField[]; readonly direction?: SortDirection; readonly pageSize?: number }
  | { readonly kind: 'events'; readonly filter?: EventFilter; readonly order?: readonly EventOrderField[]; readonly direction?: SortDirection; readonly pageSize?: number }

/** The state of a catalog export between steps. */
export interface CatalogState {
  /** The keyset cursor of the next page (`null` for the first). */
  readonly cursor: string | null
  readonly steps: number
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString())

const MARKET_COLUMNS = ['id', 'slug', 'question', 'conditionId', 'active', 'closed', 'outcomes', 'prices', 'tokenIds', 'volume', 'liquidity', 'createdAt', 'endDate', 'closedTime'] as const
const EVENT_COLUMNS = ['id', 'slug', 'title', 'active', 'closed', 'volume', 'liquidity', 'openInterest', 'markets', 'tags', 'startDate', 'endDate'] as const

// Lists are JSON text in one column, so CSV keeps one row per object (and a token id stays a string inside it).
function marketRow(m: Market): Row {
  return {
    id: m.id,
    slug: m.slug,
    question: m.question,
    conditionId: m.conditionId,
    active: m.active,
    closed: m.closed,
    outcomes: JSON.stringify(m.outcomes.map((o) => o.label)),
    prices: JSON.stringify(m.outcomes.map((o) => o.price)),
    tokenIds: JSON.stringify(m.outcomes.map((o) => o.tokenId)),
    volume: m.volume,
    liquidity: m.liquidity,
    createdAt: iso(m.createdAt),
    endDate: iso(m.endDate),
    closedTime: iso(m.closedTime),
  }
}

function eventRow(e: Event): Row {
  return {
    id: e.id,
    slug: e.slug,
    title: e.title,
    active: e.active,
    closed: e.closed,
    volume: e.volume,
    liquidity: e.liquidity,
    openInterest: e.openInterest,
    markets: e.markets.length,
    tags: JSON.stringify(e.tags.map((t) => t.slug)),
    startDate: iso(e.startDate),
    endDate: iso(e.endDate),
  }
}

/**
 * The walk of a catalog export, for {@link runExport}.
 *
 * @example
 * ```ts
 * const walk = catalogExport(pm, { kind: 'markets', filter: { closed: true, tag: 'politics' }, order: ['volume'] })
 * await runExport(walk, { file: 'markets.csv', format: 'csv' })
 * ```
 */
export function catalogExport(pm: MarketClient, options: CatalogExportOptions): Walk<CatalogState> {
  const pageSize = options.pageSize ?? 100
  const page = async (cursor: string | null, signal: AbortSignal | undefined): Promise<{ rows: Row[]; next: string | undefined }> => {
    const after = cursor ?? undefined
    if (options.kind === 'markets') {
      let q = pm.markets.where(options.filter ?? {})
      if (options.order !== undefined) q = q.orderBy(options.order, options.direction)
      const p = await q.after(after).limit(pageSize).page({ signal })
      return { rows: p.items.map(marketRow), next: p.nextCursor }
    }
    let q = pm.events.where(options.filter ?? {})
    if (options.order !== undefined) q = q.orderBy(options.order, options.direction)
    const p = await q.after(after).limit(pageSize).page({ signal })
    return { rows: p.items.map(eventRow), next: p.nextCursor }
  }
  return {
    kind: options.kind,
    job: {
      target: null,
      filter: JSON.stringify(options.filter ?? {}),
      order: options.order?.join(',') ?? null,
      direction: options.direction ?? null,
      pageSize,
    },
    columns: options.kind === 'markets' ? MARKET_COLUMNS : EVENT_COLUMNS,
    timeColumn: undefined,
    start: () => ({ cursor: null, steps: 0 }),
    async step(state, signal) {
      const { rows, next } = await page(state.cursor, signal)
      return { rows, state: { cursor: next ?? null, steps: state.steps + 1 }, done: next === undefined }
    },
    progress: (state) => ({ done: state.steps, total: undefined }),
    report: () => ({ gaps: [], gapCount: 0, unreached: [] }),
  }
}
