/**
 * The mock order-book service. Quirks kept on purpose: book levels in the observed order (bids ascending, asks
 * descending), `bids: null` on one book, 404 "No orderbook exists" for closed and unknown tokens alike, 400 for a
 * malformed token, side or history window, `/markets` pages of 4 with `next_cursor` ending at `LTE=`.
 */
import { MARKETS, pricesOf, tokensOf, type MockMarket } from './fixtures.js'
import { fail, json, numParam } from './respond.js'

interface TokenInfo {
  readonly market: MockMarket
  readonly index: number
  readonly price: number
}

const TOKENS = new Map<string, TokenInfo>(
  MARKETS.flatMap((market) => tokensOf(market).map((id, index) => [id, { market, index, price: pricesOf(market)[index] ?? 0.5 }] as const)),
)
const NULL_BIDS_MARKET = '601123'
const CLOB_PAGE = 4
const SPANS: Readonly<Record<string, readonly [span: number, fidelity: number, minFidelity: number]>> = {
  '1h': [3600, 1, 1],
  '6h': [21_600, 5, 1],
  '1d': [86_400, 15, 1],
  '1w': [604_800, 60, 5],
  '1m': [2_592_000, 360, 10],
  max: [7_776_000, 1440, 1],
  all: [7_776_000, 1440, 1],
}
const r3 = (n: number): string => String(Math.round(n * 1000) / 1000)

/** A token's book in wire form: the mock's own, or the live one of a running market channel. */
export type BookSource = (tokenId: string) => MockBookWire | undefined

/** The prices a running market channel sent for a token, oldest first (see `PriceRecord`). */
export type SentPrices = (tokenId: string) => readonly { readonly t: number; readonly p: number }[]

/** Answers one order-book request; `live` gives the books of a running market channel, and `sent` the prices it sent, so REST and stream agree. */
export async function clob(path: string, q: URLSearchParams, request: Request, now: number, live?: BookSource, sent?: SentPrices): Promise<Response> {
  if (request.method === 'POST') return batch(path, await request.json().catch(() => null))
  if (path === '/markets') return marketsPage(q.get('next_cursor'))
  if (path === '/prices-history') return history(q, now, sent)
  const token = lookup(q.get('token_id'))
  if (token instanceof Response) return token
  const b = live?.(q.get('token_id') ?? '') ?? bookOf(token)
  if (path === '/book') return json(b)
  const bid = Number(b.bids?.at(-1)?.price ?? 0)
  const ask = Number(b.asks.at(-1)?.price ?? 1)
  if (path === '/midpoint') return json({ mid: r3((bid + ask) / 2) })
  if (path === '/spread') return json({ spread: r3(ask - bid) })
  if (path === '/price') {
    const side = q.get('side')?.toUpperCase()
    if (side !== 'BUY' && side !== 'SELL') return fail(400, 'Invalid side')
    return json({ price: r3(side === 'BUY' ? bid : ask) })
  }
  return fail(404, `no route for ${path}`)
}

/** A token the book can be read for, or the service's error answer. */
function lookup(tokenId: string | null): TokenInfo | Response {
  if (tokenId === null || !/^\d{10,}$/.test(tokenId)) return fail(400, 'Invalid token id')
  const token = TOKENS.get(tokenId)
  if (token === undefined || token.market.closed) return fail(404, 'No orderbook exists for the requested token id')
  return token
}

/** A mock book in wire form (levels in the observed order: bids ascending, asks descending). */
export type MockBookWire = ReturnType<typeof bookOf>

/** The starting book of an open market's token, in wire form; `undefined` for closed and unknown tokens. */
export function initialBook(tokenId: string): MockBookWire | undefined {
  const token = TOKENS.get(tokenId)
  return token === undefined || token.market.closed ? undefined : bookOf(token)
}

/** The books' tick: every price the mock quotes is a multiple of it, inside (0, 1) as the real ones are. */
export const MOCK_TICK = 0.01

function bookOf({ market, index, price }: TokenInfo) {
  // The best bid at or below the price, on the tick, leaving room for an ask above it.
  const bid = Math.min(1 - 2 * MOCK_TICK, Math.max(MOCK_TICK, Math.floor(price / MOCK_TICK) * MOCK_TICK))
  const ask = bid + MOCK_TICK
  const onBook = (p: number) => p >= MOCK_TICK - 1e-9 && p <= 1 - MOCK_TICK + 1e-9
  const size = (k: number): string => String(Math.round((1000 + ((Number(market.id) * (k + 3)) % 9000)) * 100) / 100)
  return {
    market: market.conditionId,
    asset_id: tokensOf(market)[index] ?? '',
    timestamp: '1786483975529',
    hash: `5c0a5bcdcccf42ff5878${market.id.padStart(20, '0')}`,
    // As observed: bids ascending, asks descending (best level last).
    bids: market.id === NULL_BIDS_MARKET && index === 0
      ? null
      : [2, 1, 0].filter((k) => onBook(bid - k * MOCK_TICK)).map((k) => ({ price: r3(bid - k * MOCK_TICK), size: size(k) })),
    asks: [2, 1, 0].filter((k) => onBook(ask + k * MOCK_TICK)).map((k) => ({ price: r3(ask + k * MOCK_TICK), size: size(k + 5) })),
    min_order_size: '5',
    tick_size: String(MOCK_TICK),
    neg_risk: market['negRisk'] === true,
    last_trade_price: r3(price),
  }
}

function history(q: URLSearchParams, now: number, sent?: SentPrices): Response {
  const token = TOKENS.get(q.get('market') ?? '')
  if (token === undefined) return fail(400, 'Invalid token id')
  const interval = q.get('interval')
  const startTs = numParam(q, 'startTs')
  const endTs = numParam(q, 'endTs')
  let start: number
  let end: number
  let fidelity: number
  if (interval !== null) {
    const spec = SPANS[interval]
    if (spec === undefined) return fail(400, `invalid filters: unknown interval '${interval}'`)
    fidelity = numParam(q, 'fidelity') ?? spec[1]
    if (fidelity < spec[2]) return fail(400, `invalid filters: minimum 'fidelity' for '${interval}' range is ${spec[2]}`)
    // Resolved markets have no history for the whole-life intervals: callers must ask for a window.
    if (token.market.closed && (interval === 'max' || interval === 'all')) return json({ history: [] })
    end = Math.floor(now / 1000)
    start = end - spec[0]
  } else if (startTs !== undefined && endTs !== undefined) {
    if (endTs - startTs > 15 * 86_400) return fail(400, "invalid filters: 'startTs' and 'endTs' interval is too long")
    ;[start, end, fidelity] = [startTs, endTs, numParam(q, 'fidelity') ?? 60]
  } else {
    return fail(400, "invalid filters: give 'interval' or both 'startTs' and 'endTs'")
  }
  if (token.market._newborn) return json({ history: [] })
  const series = mockHistory(q.get('market') ?? '', start, end, fidelity, now)
  // From the first price the channel sent, the history is what it sent (at the second it was sent).
  const recorded = sent?.(q.get('market') ?? '') ?? []
  const first = recorded[0]?.t
  if (first === undefined) return json({ history: series })
  return json({ history: [...series.filter((p) => p.t < first), ...recorded.filter((p) => p.t >= start && p.t <= end)] })
}

/**
 * The mock's price series of a token: a point every `fidelity` minutes on a fixed grid (whole steps of unix time,
 * shifted to end on now for an open market), so windows asked for separately agree where they meet; within `[start, end]` (unix s) and the market's life (created to its
 * end date; now for an open one), no window limit. Each price wiggles around the token's own and reaches it at the
 * end of the market's life (now, for an open market). Exported for tests that compare an export with the series.
 */
export function mockHistory(tokenId: string, start: number, end: number, fidelity: number, now: number): { t: number; p: number }[] {
  const token = TOKENS.get(tokenId)
  if (token === undefined || token.market._newborn) return []
  const { market } = token
  const born = Math.floor(Date.parse(market.createdAt) / 1000)
  const anchor = market.closed ? Math.floor(Date.parse(market.endDate) / 1000) : Math.floor(now / 1000)
  const step = Math.max(60, fidelity * 60)
  // An open market's grid ends on now (its last point is the current price); a resolved one's on whole steps.
  const phase = market.closed ? 0 : anchor % step
  const from = Math.ceil((Math.max(start, born) - phase) / step) * step + phase
  const to = Math.min(end, anchor)
  const seed = Number(market.id) % 17
  const points: { t: number; p: number }[] = []
  for (let t = from; t <= to; t += step) {
    const wiggle = 0.12 * Math.min(1, (anchor - t) / 7_776_000) * Math.sin((t / 3600) * 0.45 + seed)
    points.push({ t, p: Math.round(Math.min(0.999, Math.max(0.001, token.price + wiggle)) * 1000) / 1000 })
  }
  return points
}

function marketsPage(cursor: string | null): Response {
  const all = MARKETS.filter((m) => tokensOf(m).length > 0)
  const offset = cursor === null || cursor === '' ? 0 : Number(atobSafe(cursor))
  if (!Number.isInteger(offset) || offset < 0) return fail(400, 'invalid next_cursor')
  const data = all.slice(offset, offset + CLOB_PAGE).map((m) => ({
    enable_order_book: true,
    active: m.active,
    closed: m.closed,
    condition_id: m.conditionId,
    question: m.question,
    market_slug: m.slug,
    tokens: tokensOf(m).map((token_id, i) => ({
      token_id,
      outcome: (JSON.parse(m.outcomes ?? '[]') as string[])[i] ?? '',
      price: pricesOf(m)[i] ?? 0,
      winner: m.closed && (pricesOf(m)[i] ?? 0) === 1,
    })),
    tags: m._tags,
  }))
  const next = offset + CLOB_PAGE < all.length ? btoa(String(offset + CLOB_PAGE)) : 'LTE='
  return json({ limit: CLOB_PAGE, count: data.length, next_cursor: next, data })
}

function atobSafe(cursor: string): string {
  try {
    return atob(cursor)
  } catch {
    return 'x'
  }
}

function batch(path: string, body: unknown): Response {
  if (!Array.isArray(body)) return fail(400, 'Invalid payload: expected a JSON array')
  if (body.length > 500) return fail(400, 'Invalid payload: at most 500 items per request')
  const items = body as { token_id?: string; side?: string }[]
  const known = items.flatMap((i) => {
    const t = lookup(i.token_id ?? null)
    return t instanceof Response ? [] : [{ id: i.token_id ?? '', side: i.side, book: bookOf(t) }]
  })
  const best = (b: ReturnType<typeof bookOf>) => ({ bid: Number(b.bids?.at(-1)?.price ?? 0), ask: Number(b.asks.at(-1)?.price ?? 1) })
  if (path === '/books') return json(known.map((k) => k.book))
  const out: Record<string, unknown> = {}
  for (const { id, side, book } of known) {
    const { bid, ask } = best(book)
    if (path === '/prices') out[id] = { ...(out[id] as object), [side === 'SELL' ? 'SELL' : 'BUY']: r3(side === 'SELL' ? ask : bid) }
    else if (path === '/midpoints') out[id] = r3((bid + ask) / 2)
    else if (path === '/spreads') out[id] = r3(ask - bid)
    else return fail(404, `no route for POST ${path}`)
  }
  return json(out)
}
