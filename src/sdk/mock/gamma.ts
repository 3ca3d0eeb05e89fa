/**
 * The mock catalog service. Quirks kept on purpose: `limit` silently clamped (5 markets, 2 events, 3 tags a page,
 * so walks cross pages), 422 past offset 1,000, keyset lists ignoring `cursor`/`next_cursor` (only `after_cursor`
 * counts), `/events` returning closed events when `closed` is omitted, `200 null` for an unknown slug.
 */
import { EVENTS, MARKETS, TAGS, eventsWithMarkets, strip, tokensOf, type MockMarket } from './fixtures.js'
import { boolParam, cursorOf, fail, json, numParam, offsetOf, sortBy, window } from './respond.js'

/** Deepest offset the mock's offset lists serve. */
export const MAX_GAMMA_OFFSET = 1000
const CLAMP = { markets: 5, events: 2, tags: 3 } as const

/** Markets carry `volume`/`liquidity` as strings and sort by their numeric twins; events have numbers already. */
const MARKET_ORDER_ALIASES: Readonly<Record<string, string>> = { volume: 'volumeNum', liquidity: 'liquidityNum' }

/** Answers one catalog request; `path` is relative to the service's base URL. */
export function gamma(path: string, q: URLSearchParams): Response {
  const keyset = path.endsWith('/keyset')
  const base = keyset ? path.slice(0, -'/keyset'.length) : path
  if (base === '/markets') return list('markets', filterMarkets(q).map(strip), q, keyset)
  if (base === '/events') return list('events', filterEvents(q), q, keyset)
  if (path === '/tags') return list('tags', [...TAGS], q, false)
  if (path === '/public-search') return search(q)
  const [, kind, a, b] = path.split('/').map(decodeURIComponent)
  const byId = b === undefined
  const key = byId ? 'id' : 'slug'
  if (a === 'slug' && b !== undefined && kind === 'tags') return json(TAGS.find((t) => t.slug === b) ?? null)
  if (kind === 'markets' && (byId || a === 'slug')) return single(filterMarkets(new URLSearchParams()).map(strip), key, byId ? a : b)
  if (kind === 'events' && (byId || a === 'slug')) return single(eventsWithMarkets(), key, byId ? a : b)
  return fail(404, `no route for ${path}`, 'not found')
}

function single(items: Record<string, unknown>[], key: string, value: string | undefined): Response {
  const found = items.find((i) => i[key] === value)
  // By id an unknown object is a 404; by slug the service answers 200 with `null`.
  if (found === undefined && key === 'id') return fail(404, 'not found', 'not found')
  return json(found ?? null)
}

function list(kind: keyof typeof CLAMP, all: Record<string, unknown>[], q: URLSearchParams, keyset: boolean): Response {
  const order = q.get('order')?.split(',')[0]
  const field = kind === 'markets' && order !== undefined ? (MARKET_ORDER_ALIASES[order] ?? order) : order
  if (field) sortBy(all, field, boolParam(q, 'ascending') ?? false)
  if (!keyset) {
    if ((numParam(q, 'offset') ?? 0) > MAX_GAMMA_OFFSET) {
      return fail(422, `offset too large, use /${kind}/keyset for deeper pagination`, 'validation error')
    }
    return json(window(all, q, CLAMP[kind]).items)
  }
  const after = q.get('after_cursor')
  const start = after === null ? 0 : offsetOf(after)
  if (start === undefined) return fail(400, 'invalid after_cursor', 'validation error')
  const params = new URLSearchParams(q)
  params.set('offset', String(start))
  const page = window(all, params, CLAMP[kind])
  const next = start + page.items.length
  return json({ [kind]: page.items, ...(next < all.length ? { next_cursor: cursorOf(next) } : {}) })
}

function filterMarkets(q: URLSearchParams): MockMarket[] {
  return MARKETS.filter((m) => {
    const tokens = tokensOf(m)
    return (
      common(m, q, 'volume_num', 'liquidity_num') &&
      matchAll(q, 'condition_ids', (id) => id === m.conditionId) &&
      matchAll(q, 'clob_token_ids', (id) => tokens.includes(id))
    )
  })
}

function filterEvents(q: URLSearchParams): Record<string, unknown>[] {
  const tagSlug = q.get('tag_slug')
  const tagId = tagSlug === null ? undefined : (TAGS.find((t) => t.slug === tagSlug)?.id ?? '-')
  const ids = new Set(EVENTS.filter((e) => (tagId === undefined || e._tags.includes(tagId)) && common(e, q, 'volume', 'liquidity')).map((e) => e.id))
  return eventsWithMarkets().filter((e) => ids.has(e['id'] as string))
}

type Filterable = { id: string; slug: string; active: boolean; closed: boolean; _tags: readonly string[] } & Record<string, unknown>

function common(o: Filterable, q: URLSearchParams, volume: string, liquidity: string): boolean {
  const vol = (o['volumeNum'] ?? o['volume']) as number
  const liq = (o['liquidityNum'] ?? o['liquidity']) as number
  const end = typeof o['endDate'] === 'string' ? o['endDate'] : ''
  const start = typeof o['startDate'] === 'string' ? o['startDate'] : ''
  const active = boolParam(q, 'active')
  const closed = boolParam(q, 'closed')
  const tag = q.get('tag_id')
  return (
    (active === undefined || o.active === active) &&
    (closed === undefined || o.closed === closed) &&
    (tag === null || o._tags.includes(tag)) &&
    matchAll(q, 'slug', (s) => s === o.slug) &&
    matchAll(q, 'id', (id) => id === o.id) &&
    within(vol, numParam(q, `${volume}_min`), numParam(q, `${volume}_max`)) &&
    within(liq, numParam(q, `${liquidity}_min`), numParam(q, `${liquidity}_max`)) &&
    (q.get('end_date_min') ?? '') <= end &&
    end <= (q.get('end_date_max') ?? '\uffff') &&
    (q.get('start_date_min') ?? '') <= start &&
    start <= (q.get('start_date_max') ?? '\uffff')
  )
}

/** Repeated keys (`id=1&id=2`) and comma lists both match any of their values. */
function matchAll(q: URLSearchParams, key: string, test: (value: string) => boolean): boolean {
  const values = q.getAll(key).flatMap((v) => v.split(','))
  return values.length === 0 || values.some(test)
}

function within(n: number, min: number | undefined, max: number | undefined): boolean {
  return (min === undefined || n >= min) && (max === undefined || n <= max)
}

function search(q: URLSearchParams): Response {
  const text = q.get('q')?.trim().toLowerCase()
  if (!text) return fail(422, 'q is required', 'validation error')
  const status = q.get('events_status') ?? 'all'
  const keepClosed = boolParam(q, 'keep_closed_markets') ?? false
  const perType = numParam(q, 'limit_per_type') ?? 5
  const page = Math.max(1, numParam(q, 'page') ?? 1)
  const found = eventsWithMarkets()
    .filter((e) => status === 'all' || (status === 'closed') === e['closed'])
    .filter((e) => JSON.stringify([e['title'], (e['markets'] as { question: string }[]).map((m) => m.question)]).toLowerCase().includes(text))
    .map((e) => ({ ...e, markets: (e['markets'] as { closed: boolean }[]).filter((m) => keepClosed || !m.closed) }))
  const events = found.slice((page - 1) * perType, page * perType)
  const tags = TAGS.filter((t) => t.label.toLowerCase().includes(text) || t.slug.includes(text))
  // Empty lists come back as `null`, as on the real service.
  return json({
    events: events.length > 0 ? events : null,
    tags: page === 1 && tags.length > 0 ? tags : null,
    profiles: page === 1 && text === 'bitcoin' ? [{ id: '3102', name: 'btcmaxi', pseudonym: 'Trivial-Gopher', profileImage: null, bio: '' }] : null,
    pagination: { hasMore: page * perType < found.length, totalResults: found.length },
  })
}
