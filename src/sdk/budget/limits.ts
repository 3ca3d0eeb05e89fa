/**
 * The services' published rate limits (per 10 seconds, spec/market.md "Limits and freshness"), in one table that
 * the client's request budget and the mock's limiter both read, so the two cannot drift apart.
 */
import type { Service } from '../service.js'

/** A limit's key: a whole service (`'data'`) or one endpoint of it (`'data /trades'`). */
export type LimitKey = Service | `${Service} /${string}`

/** Requests per window, by {@link LimitKey}. */
export type Limits = Readonly<Partial<Record<LimitKey, number>>>

/** The window the services count requests in. */
export const LIMIT_WINDOW_MS = 10_000

/** The published limits per {@link LIMIT_WINDOW_MS}: each service overall, and the endpoints listed for it. */
export const PUBLISHED_LIMITS: Limits = {
  gamma: 4_000,
  'gamma /markets': 300,
  'gamma /events': 500,
  'gamma /public-search': 350,
  'gamma /tags': 200,
  clob: 9_000,
  'clob /book': 1_500,
  'clob /price': 1_500,
  'clob /midpoint': 1_500,
  'clob /books': 500,
  'clob /prices': 500,
  'clob /midpoints': 500,
  'clob /spreads': 500,
  'clob /prices-history': 1_000,
  data: 1_000,
  'data /trades': 200,
}

/**
 * The keys of `limits` a request to `service` `path` counts against: the service's own, and the endpoint whose path
 * is `path` or a parent of it (`/markets` covers `/markets/keyset` and `/markets/slug/x`; `/price` is not `/prices`).
 */
export function keysOf(limits: Limits, service: Service, path: string): LimitKey[] {
  const keys: LimitKey[] = []
  if (limits[service] !== undefined) keys.push(service)
  let best: LimitKey | undefined
  for (const key in limits) {
    if (!key.startsWith(`${service} /`)) continue
    const endpoint = key.slice(service.length + 1)
    if ((path === endpoint || path.startsWith(`${endpoint}/`)) && (best === undefined || key.length > best.length)) best = key as LimitKey
  }
  if (best !== undefined) keys.push(best)
  return keys
}
