/**
 * The mock Data API v2 (`/v2/...`), over the same trades as the v1 mock (data.ts): the `{ data, pagination }`
 * envelope, snake_case rows, opaque cursors typed per endpoint, and the service's refusals kept on purpose: an
 * `offset` parameter, a `limit` over 1,000, more than 20 distinct ids, a foreign or tampered cursor and a missing
 * anchor are 400s with the v2 error body (`code`, `retryable`, `trace_id`, `parameter`) and an `x-trace-id` header.
 * Positions, holders, values, PnL and boards are derived from the trades, so every read agrees with the others.
 */
import { allTrades } from './data.js'
import { MARKETS, pricesOf, tokensOf, type MockMarket } from './fixtures.js'
import { boolParam, json, numParam } from './respond.js'

const MAX_LIMIT = 1000
const MAX_IDS = 20

let traces = 0
/** A trace id per answer, as the service gives one (made up; unique within the process). */
const traceId = (): string => `mock${(++traces).toString(16).padStart(12, '0')}`

/** The v2 error body, with its trace id in the header too. */
export function v2Error(status: number, code: string, error: string, parameter?: string, headers: Record<string, string> = {}): Response {
  const trace = traceId()
  const retryable = status === 429 || status === 503
  return json({ error, code, retryable, trace_id: trace, ...(parameter === undefined ? {} : { parameter }) }, status, { 'x-trace-id': trace, ...headers })
}

/** Thrown inside a route, answered as a 400 `invalid_request`. */
class Refused extends Error {
  constructor(
    message: string,
    readonly parameter: string,
  ) {
    super(message)
  }
}

/** Answers one `/v2/...` request of the trades service. */
export function dataV2(path: string, q: URLSearchParams, now: number): Response {
  try {
    if (q.has('offset')) throw new Refused('unknown query parameter: offset (pagination is cursor-only)', 'offset')
    const route = ROUTES[path]
    if (route === undefined) return v2Error(404, 'not_found', `no route for ${path}`)
    const body = route(q, Math.floor(now / 1000))
    return json(body, 200, { 'x-trace-id': traceId() })
  } catch (err) {
    if (err instanceof Refused) return v2Error(400, 'invalid_request', err.message, err.parameter)
    throw err
  }
}

type Route = (q: URLSearchParams, nowSeconds: number) => unknown

const ROUTES: Readonly<Record<string, Route>> = {
  '/v2/trades': trades,
  '/v2/activity': activity,
  '/v2/positions': positions,
  '/v2/holders': holders,
  '/v2/value': value,
  '/v2/user-pnl': userPnl,
  '/v2/leaderboard': leaderboard,
  '/v2/oi': openInterest,
  '/v2/live-volume': liveVolume,
}

// --- shared parameter readers -------------------------------------------------------------------------------------

/** A csv id list under any of its spellings, deduplicated case-insensitively; over 20 distinct is refused. */
function ids(q: URLSearchParams, ...names: string[]): string[] | undefined {
  const name = names.find((n) => q.has(n))
  if (name === undefined) return undefined
  const values = new Map<string, string>()
  for (const v of (q.get(name) ?? '').split(',')) if (v.trim() !== '') values.set(v.trim().toLowerCase(), v.trim())
  if (values.size > MAX_IDS) throw new Refused(`${names[0]}: at most ${MAX_IDS} distinct values`, names[0] ?? name)
  return [...values.values()]
}

function param(q: URLSearchParams, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = q.get(n)
    if (v !== null && v !== '') return v
  }
  return undefined
}

/** A page of `rows` after the cursor (or from the start), the cursor bound to its endpoint; `limit` over 1,000 is refused. */
function paged<T>(kind: string, rows: readonly T[], q: URLSearchParams, defaultLimit = 100): { data: T[]; pagination: unknown } {
  const cursor = q.get('cursor')
  let offset = 0
  let limit = numParam(q, 'limit') ?? defaultLimit
  if (limit > MAX_LIMIT || limit < 0) throw new Refused(`limit must be at most ${MAX_LIMIT}`, 'limit')
  if (cursor !== null) {
    const c = decodeCursor(cursor, kind)
    offset = c.o
    // The page size inside a cursor wins over `limit`.
    limit = c.n
  }
  const data = rows.slice(offset, offset + limit)
  const next = offset + data.length
  const hasMore = next < rows.length
  return { data, pagination: { has_more: hasMore, next_cursor: hasMore ? encodeCursor(kind, next, limit) : null, limit, offset } }
}

const SIGNATURE = 'mocksig'

function encodeCursor(kind: string, o: number, n: number): string {
  return `${btoa(JSON.stringify({ k: kind, o, n }))}.${SIGNATURE}`
}

function decodeCursor(cursor: string, kind: string): { o: number; n: number } {
  const [body, sig] = cursor.split('.')
  try {
    const c = JSON.parse(atob(body ?? '')) as { k?: unknown; o?: unknown; n?: unknown }
    if (sig === SIGNATURE && c.k === kind && typeof c.o === 'number' && typeof c.n === 'number') return { o: c.o, n: c.n }
  } catch {
    // Falls through to the refusal.
  }
  throw new Refused('Invalid query params or cursor', 'cursor')
}

// --- derived data ----------------------------------------------------------------------------------------------------

type Trade = Record<string, unknown> & { readonly ago: number }

const marketByCondition = new Map<string, MockMarket>(MARKETS.map((m) => [m.conditionId, m]))
const eventOf = (m: MockMarket): string => m._event

function tradeRow(t: Trade, nowSeconds: number): Record<string, unknown> {
  return {
    proxy_wallet: t['proxyWallet'],
    side: t['side'],
    token_id: t['asset'],
    condition_id: t['conditionId'],
    size: t['size'],
    price: t['price'],
    timestamp: nowSeconds - t.ago,
    title: t['title'],
    slug: t['slug'],
    icon: '',
    event_slug: t['eventSlug'],
    outcome: t['outcome'],
    outcome_index: t['outcomeIndex'],
    name: t['name'],
    pseudonym: t['pseudonym'],
    bio: '',
    profile_image: '',
    profile_image_optimized: '',
    transaction_hash: t['transactionHash'],
  }
}

/** The conditions of the markets of some events. */
function conditionsOfEvents(eventIds: readonly string[]): Set<string> {
  return new Set(MARKETS.filter((m) => eventIds.includes(eventOf(m))).map((m) => m.conditionId))
}

function sizeFloor(q: URLSearchParams, t: Trade, defaultShares: number): boolean {
  const type = q.get('filter_type') ?? 'TOKENS'
  const amount = numParam(q, 'filter_amount') ?? (type === 'TOKENS' ? defaultShares : 0)
  const size = t['size'] as number
  return type === 'CASH' ? size * (t['price'] as number) >= amount : size >= amount
}

function trades(q: URLSearchParams, now: number): unknown {
  const conditions = ids(q, 'condition', 'condition_id', 'conditionId')
  const events = ids(q, 'event_id', 'eventId')
  const allowed = events === undefined ? undefined : conditionsOfEvents(events)
  const user = param(q, 'user')?.toLowerCase()
  const side = param(q, 'side')?.toUpperCase()
  boolParam(q, 'taker_only') // accepted; every mock trade is a taker fill
  const { trades: all, byMarket } = allTrades()
  const candidates = conditions?.length === 1 ? (byMarket.get(conditions[0]) ?? []) : all
  const rows = candidates.filter(
    (t) =>
      (conditions === undefined || conditions.includes(t['conditionId'] as string)) &&
      (allowed === undefined || allowed.has(t['conditionId'] as string)) &&
      (user === undefined || t['proxyWallet'] === user) &&
      (side === undefined || t['side'] === side) &&
      sizeFloor(q, t, 0.01),
  )
  const page = paged('trades', rows, q)
  return { ...page, data: page.data.map((t) => tradeRow(t, now)) }
}

function activity(q: URLSearchParams, now: number): unknown {
  const user = param(q, 'user')?.toLowerCase()
  if (user === undefined) throw new Refused('user is required', 'user')
  const conditions = ids(q, 'condition', 'condition_id', 'conditionId')
  const events = ids(q, 'event_id', 'eventId')
  if (conditions !== undefined && events !== undefined) throw new Refused('condition and event_id are mutually exclusive', 'event_id')
  const allowed = events === undefined ? undefined : conditionsOfEvents(events)
  const types = param(q, 'type')?.split(',')
  const side = param(q, 'side')?.toUpperCase()
  const ascending = param(q, 'sort_direction') === 'ASC'
  // Every mock activity is a trade.
  const rows = allTrades().trades.filter(
    (t) =>
      t['proxyWallet'] === user &&
      (types === undefined || types.includes('TRADE')) &&
      (conditions === undefined || conditions.includes(t['conditionId'] as string)) &&
      (allowed === undefined || allowed.has(t['conditionId'] as string)) &&
      (side === undefined || t['side'] === side),
  )
  const ordered = ascending ? [...rows].reverse() : rows
  const page = paged(`activity:${ascending ? 'asc' : 'desc'}`, ordered, q)
  return {
    ...page,
    data: page.data.map((t) => {
      const { profile_image_optimized: _, ...row } = tradeRow(t, now)
      return { ...row, type: 'TRADE', usdc_size: Math.round((t['size'] as number) * (t['price'] as number) * 1e6) / 1e6, profile_image_optimized: '' }
    }),
  }
}

interface MockPosition {
  readonly wallet: string
  readonly name: string
  readonly pseudonym: string
  readonly market: MockMarket
  readonly token: string
  readonly index: number
  bought: number
  sold: number
  cost: number
  proceeds: number
  lastAgo: number
  firstAgo: number
}

let memo: MockPosition[] | undefined

/** Every wallet's position in every token it traded, from the trades (made once). */
function allPositions(): MockPosition[] {
  if (memo !== undefined) return memo
  const byKey = new Map<string, MockPosition>()
  for (const t of allTrades().trades) {
    const key = `${t['proxyWallet'] as string}|${t['asset'] as string}`
    const market = marketByCondition.get(t['conditionId'] as string)
    if (market === undefined) continue
    let p = byKey.get(key)
    if (p === undefined) {
      p = {
        wallet: t['proxyWallet'] as string,
        name: t['name'] as string,
        pseudonym: t['pseudonym'] as string,
        market,
        token: t['asset'] as string,
        index: t['outcomeIndex'] as number,
        bought: 0,
        sold: 0,
        cost: 0,
        proceeds: 0,
        lastAgo: t.ago,
        firstAgo: t.ago,
      }
      byKey.set(key, p)
    }
    const size = t['size'] as number
    const cash = size * (t['price'] as number)
    if (t['side'] === 'BUY') {
      p.bought += size
      p.cost += cash
    } else {
      p.sold += size
      p.proceeds += cash
    }
    p.lastAgo = Math.min(p.lastAgo, t.ago)
    p.firstAgo = Math.max(p.firstAgo, t.ago)
  }
  memo = [...byKey.values()]
  return memo
}

const round = (n: number, places = 6): number => Math.round(n * 10 ** places) / 10 ** places

function figures(p: MockPosition) {
  const size = Math.max(0, p.bought - p.sold)
  const avg = p.bought > 0 ? p.cost / p.bought : 0
  const price = p.market.closed ? (p.index === 0 ? 1 : 0) : (pricesOf(p.market)[p.index] ?? 0)
  const realized = p.proceeds - avg * Math.min(p.sold, p.bought)
  const unrealized = size * (price - avg)
  const status = size === 0 ? 'CLOSED' : p.market.closed ? 'REDEEMABLE' : 'OPEN'
  return { size, avg, price, realized, unrealized, status, value: size * price }
}

function positionRow(p: MockPosition, now: number): Record<string, unknown> {
  const f = figures(p)
  const tokens = tokensOf(p.market)
  const labels = JSON.parse(p.market.outcomes ?? '[]') as string[]
  const entry = f.avg * f.size
  return {
    proxy_wallet: p.wallet,
    token_id: p.token,
    condition_id: p.market.conditionId,
    current_size: round(f.size),
    avg_price: round(f.avg),
    entry_cost_usdc: round(entry),
    entry_fees_usdc: 0,
    total_cost_usdc: round(entry),
    current_price: f.price,
    current_value: round(f.value),
    total_size: round(p.bought),
    realized_pnl: round(f.realized),
    unrealized_pnl: round(f.unrealized),
    total_pnl: round(f.realized + f.unrealized),
    percent_pnl: entry > 0 ? round(((f.realized + f.unrealized) / entry) * 100) : 0,
    percent_realized_pnl: entry > 0 ? round((f.realized / entry) * 100) : 0,
    status: f.status,
    redeemable: f.status === 'REDEEMABLE',
    mergeable: false,
    negative_risk: false,
    archived: false,
    title: p.market.question,
    slug: p.market.slug,
    icon: '',
    event_id: eventOf(p.market),
    event_slug: (p.market['events'] as { slug?: string }[] | undefined)?.[0]?.slug ?? '',
    outcome: labels[p.index] ?? '',
    outcome_index: p.index,
    opposite_outcome: labels[1 - p.index] ?? '',
    opposite_token_id: tokens[1 - p.index] ?? '',
    end_date: p.market.endDate.slice(0, 10),
    last_event_at: now - p.lastAgo,
    first_entry_at: now - p.firstAgo,
    name: p.name,
    profile_image: '',
    verified: false,
  }
}

const SORTS: Readonly<Record<string, (p: MockPosition) => number>> = {
  CURRENT_VALUE: (p) => figures(p).value,
  PRICE: (p) => figures(p).price,
  TOKENS: (p) => figures(p).size,
  UNREALIZED_PNL: (p) => figures(p).unrealized,
  REALIZED_PNL: (p) => figures(p).realized,
  TOTAL_PNL: (p) => figures(p).realized + figures(p).unrealized,
  TIMESTAMP: (p) => -p.lastAgo,
}

function positions(q: URLSearchParams, now: number): unknown {
  const user = param(q, 'user')?.toLowerCase()
  const conditions = ids(q, 'condition', 'condition_id', 'conditionId')
  if (user === undefined && conditions === undefined) throw new Refused('user or condition is required', 'user')
  if (user === undefined && (conditions?.length ?? 0) !== 1) throw new Refused('without user, exactly one condition', 'condition')
  const status = param(q, 'status') ?? 'OPEN'
  const events = ids(q, 'event_id', 'eventId')
  const title = param(q, 'title')?.toLowerCase()
  const sortBy = param(q, 'sort_by') ?? (status === 'CLOSED' ? 'REALIZED_PNL' : 'CURRENT_VALUE')
  const sort = SORTS[sortBy]
  if (sort === undefined) throw new Refused(`unknown sort_by ${sortBy}`, 'sort_by')
  const ascending = param(q, 'sort_direction') === 'ASC'
  const type = q.get('filter_type') ?? 'TOKENS'
  const floor = numParam(q, 'filter_amount') ?? (type === 'TOKENS' ? 0.1 : 0)
  const rows = allPositions().filter((p) => {
    const f = figures(p)
    const statusMatches = status === 'OPEN' ? f.status !== 'CLOSED' : status === 'REDEEMABLE' ? f.status === 'REDEEMABLE' : status === 'CLOSED' ? f.status === 'CLOSED' : false
    return (
      statusMatches &&
      (user === undefined || p.wallet === user) &&
      (conditions === undefined || conditions.includes(p.market.conditionId)) &&
      (events === undefined || events.includes(eventOf(p.market))) &&
      (title === undefined || p.market.question.toLowerCase().includes(title)) &&
      (status === 'CLOSED' || (type === 'CASH' ? f.value : f.size) >= floor)
    )
  })
  rows.sort((a, b) => (ascending ? 1 : -1) * (sort(a) - sort(b)) || a.token.localeCompare(b.token) || a.wallet.localeCompare(b.wallet))
  const page = paged(`positions:${status}:${sortBy}`, rows, q)
  return { ...page, data: page.data.map((p) => positionRow(p, now)) }
}

function holders(q: URLSearchParams): unknown {
  const conditions = ids(q, 'condition', 'condition_id', 'conditionId')
  if (conditions === undefined || conditions.length === 0) throw new Refused('condition is required', 'condition')
  const includePnl = boolParam(q, 'include_pnl') === true
  if (includePnl && conditions.length !== 1) throw new Refused('include_pnl takes exactly one condition', 'include_pnl')
  const minBalance = numParam(q, 'min_balance') ?? 0
  const cursor = q.get('cursor')
  let limit = numParam(q, 'limit') ?? 100
  if (limit > (includePnl ? 100 : MAX_LIMIT)) throw new Refused('limit over the cap', 'limit')
  let offset = 0
  if (cursor !== null) ({ o: offset, n: limit } = decodeCursor(cursor, 'holders'))
  const tokens = MARKETS.filter((m) => conditions.includes(m.conditionId)).flatMap(tokensOf)
  let hasMore = false
  const groups = tokens.flatMap((token) => {
    const all = allPositions()
      .filter((p) => p.token === token && figures(p).size > 0 && figures(p).size >= minBalance)
      .sort((a, b) => figures(b).size - figures(a).size || a.wallet.localeCompare(b.wallet))
    if (all.length > offset + limit) hasMore = true
    const window = all.slice(offset, offset + limit)
    if (window.length === 0) return []
    return [
      {
        token_id: token,
        holders: window.map((p) => {
          const f = figures(p)
          const base = {
            proxy_wallet: p.wallet,
            bio: '',
            token_id: token,
            pseudonym: p.pseudonym,
            amount: round(f.size),
            display_username_public: p.name !== '',
            outcome_index: p.index,
            name: p.name,
            profile_image: '',
            profile_image_optimized: '',
            verified: false,
          }
          if (!includePnl) return base
          return { ...base, avg_price: round(f.avg), entry_cost_usdc: round(f.avg * f.size), current_price: f.price, current_value: round(f.value), realized_pnl: round(f.realized), unrealized_pnl: round(f.unrealized), total_pnl: round(f.realized + f.unrealized) }
        }),
      },
    ]
  })
  const next = offset + limit
  return { data: groups, pagination: { has_more: hasMore, next_cursor: hasMore ? encodeCursor('holders', next, limit) : null, limit, offset } }
}

function value(q: URLSearchParams): unknown {
  const user = param(q, 'user')?.toLowerCase()
  if (user === undefined) throw new Refused('user is required', 'user')
  const conditions = ids(q, 'condition', 'condition_id', 'conditionId')
  const total = allPositions()
    .filter((p) => p.wallet === user && (conditions === undefined || conditions.includes(p.market.conditionId)))
    .reduce((sum, p) => sum + figures(p).value, 0)
  return { data: { proxy_wallet: user, value: round(total, 4) } }
}

const INTERVAL_SECONDS: Readonly<Record<string, number>> = { '6h': 21_600, '12h': 43_200, '1d': 86_400, '1w': 604_800, '1m': 2_592_000, max: 31_536_000, all: 31_536_000 }
const FIDELITY_SECONDS: Readonly<Record<string, number>> = { '1h': 3600, '3h': 10_800, '12h': 43_200, '18h': 64_800, '1d': 86_400 }

function userPnl(q: URLSearchParams, now: number): unknown {
  const user = param(q, 'user', 'user_address')?.toLowerCase()
  if (user === undefined) throw new Refused('user is required', 'user')
  const interval = param(q, 'interval') ?? '1d'
  const fidelity = param(q, 'fidelity') ?? '1h'
  const span = INTERVAL_SECONDS[interval]
  const step = FIDELITY_SECONDS[fidelity]
  if (span === undefined) throw new Refused(`unknown interval ${interval}`, 'interval')
  if (step === undefined) throw new Refused(`unknown fidelity ${fidelity}`, 'fidelity')
  const mine = allTrades().trades.filter((t) => t['proxyWallet'] === user)
  const points = []
  for (let at = now - span - ((now - span) % step) + step; at <= now; at += step) {
    const before = mine.filter((t) => now - t.ago <= at)
    const volume = before.reduce((s, t) => s + (t['size'] as number), 0)
    const cash = before.reduce((s, t) => s + (t['size'] as number) * (t['price'] as number) * (t['side'] === 'SELL' ? 1 : -1), 0)
    points.push({ timestamp: at, source_block: 80_000_000 + Math.floor(at / 2), realized_market_pnl: round(cash), realized_lp_pnl: 0, realized_combo_pnl: 0, realized_pnl: round(cash), unrealized_pnl: null, volume: round(volume), volume_usdc: round(Math.abs(cash)), trade_count: before.length, fees: null })
  }
  return { data: { proxy_wallet: user, interval, fidelity, source_fidelity: fidelity, points } }
}

function board(category: string): { user_id: string; pnl: number; volume: number; user_name: string }[] {
  const byWallet = new Map<string, { user_id: string; pnl: number; volume: number; user_name: string }>()
  for (const p of allPositions()) {
    if (category !== 'overall' && p.market['category'] !== category) continue
    const f = figures(p)
    const row = byWallet.get(p.wallet) ?? { user_id: p.wallet, pnl: 0, volume: 0, user_name: p.name }
    row.pnl += f.realized + f.unrealized
    row.volume += p.bought + p.sold
    byWallet.set(p.wallet, row)
  }
  return [...byWallet.values()].map((r) => ({ ...r, pnl: round(r.pnl, 2), volume: round(r.volume, 2) }))
}

/** Competition ranks: ties share one, the next skips. */
function ranked<T>(rows: T[], key: (r: T) => number): (T & { rank: number })[] {
  rows.sort((a, b) => key(b) - key(a))
  return rows.map((r) => ({ ...r, rank: rows.findIndex((o) => key(o) === key(r)) + 1 }))
}

function leaderboard(q: URLSearchParams): unknown {
  const period = param(q, 'time_period') ?? 'day'
  if (!['day', 'week', 'month', 'all'].includes(period)) throw new Refused(`unknown time_period ${period}`, 'time_period')
  const category = param(q, 'category') ?? 'overall'
  const sortBy = param(q, 'sort_by') ?? 'PNL'
  const rows = board(category)
  const user = param(q, 'user')?.toLowerCase()
  if (user !== undefined) {
    const mine = rows.find((r) => r.user_id === user)
    if (mine === undefined) return { data: null }
    const rankPnl = ranked([...rows], (r) => r.pnl).find((r) => r.user_id === user)?.rank ?? null
    const rankVolume = ranked([...rows], (r) => r.volume).find((r) => r.user_id === user)?.rank ?? null
    return { data: { ...mine, profile_image: '', x_username: '', verified: false, rank_pnl: rankPnl, rank_volume: rankVolume } }
  }
  const sorted = ranked(rows, (r) => (sortBy === 'VOLUME' ? r.volume : r.pnl)).map((r) => ({ rank: r.rank, user_id: r.user_id, pnl: r.pnl, volume: r.volume, user_name: r.user_name, profile_image: '', x_username: '', verified: false }))
  return paged(`leaderboard:${period}:${category}:${sortBy}`, sorted, q)
}

/** Open interest: the same figure as the v1 `/oi` (10% of volume), 0 for a closed or brand-new market. */
const oiOf = (m: MockMarket): number => (m._newborn || m.closed ? 0 : round(m.volumeNum * 0.1))

function openInterest(q: URLSearchParams): unknown {
  const conditions = ids(q, 'condition', 'condition_id', 'conditionId')
  if (conditions === undefined) return { data: [{ condition_id: 'GLOBAL', value: round(MARKETS.reduce((s, m) => s + oiOf(m), 0), 2) }] }
  return { data: MARKETS.filter((m) => conditions.includes(m.conditionId)).map((m) => ({ condition_id: m.conditionId, value: oiOf(m) })) }
}

function liveVolume(q: URLSearchParams): unknown {
  const events = ids(q, 'event_id', 'id', 'eventId')
  if (events === undefined || events.length === 0) throw new Refused('event_id is required', 'event_id')
  const { byMarket } = allTrades()
  const conditions = MARKETS.filter((m) => events.includes(eventOf(m)))
    .map((m) => ({ condition_id: m.conditionId, taker_volume: round((byMarket.get(m.conditionId) ?? []).reduce((s, t) => s + (t['size'] as number), 0)) }))
    .sort((a, b) => b.taker_volume - a.taker_volume)
  return { data: { taker_volume_total: round(conditions.reduce((s, c) => s + c.taker_volume, 0)), conditions } }
}
