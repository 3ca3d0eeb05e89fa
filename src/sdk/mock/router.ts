/**
 * The core of the mock: a fetch-style router `(Request) => Promise<Response | undefined>` over the three services.
 * It imports neither msw nor node:http, so the node server and the msw handlers are thin wrappers around it, and
 * the CLI's `--mock` works where msw (an optional peer dependency) is not installed.
 */
import { DEFAULT_URLS } from '../client.js'
import { clob, type BookSource, type SentPrices } from './clob.js'
import { data } from './data.js'
import { dataV2, v2Error } from './data-v2.js'
import { gamma } from './gamma.js'
import { createMockLimiter, type MockRateLimits } from './limiter.js'
import { json } from './respond.js'

/** Base URLs of the three services, as given to `createMarketClient`. */
export interface MockMarketUrls {
  readonly gammaUrl: string
  readonly clobUrl: string
  readonly dataUrl: string
}

/** Options of {@link createMockMarketRouter}. */
export interface MockRouterOptions {
  /** Which base URLs the router answers (default: the real services' URLs, for msw). */
  readonly urls?: Partial<MockMarketUrls> | undefined
  /** The mock's clock in unix ms, for the timestamps of history and trades (default `Date.now`). */
  readonly now?: (() => number) | undefined
  /**
   * Models the published rate limits (`true`) or others: past a limit in the window, a 429 without `Retry-After`
   * (a throttled 200 on the trades service). Off by default, so tests that make many calls stay deterministic.
   */
  readonly rateLimits?: MockRateLimits | boolean | undefined
  /** The most trades one `/trades` answer holds (default 10, so walks cross pages; the real service allows more). */
  readonly tradesPage?: number | undefined
}

/**
 * How a throttled answer looks: the trades service's `200 {"error":"Too Many Requests"}`, or a 429. On the Data API
 * v2 (`/v2/...`) it is always the v2 error body with a `Retry-After` (1 s unless given): a 429 `rate_limited` (also
 * for 200), or with 503 a `request_timeout`.
 */
export interface ThrottleOptions {
  readonly status?: 200 | 429 | 503 | undefined
  /** Sent as `Retry-After` on a 429. */
  readonly retryAfterSeconds?: number | undefined
}

/** A fetch-style router over the mock services; `undefined` for a request to another host. */
export interface MockMarketRouter {
  (request: Request): Promise<Response | undefined>
  readonly urls: MockMarketUrls
  /** Answers the next `count` requests as throttled. A request header `x-mock-throttle: 200|429` throttles one. */
  throttle(count: number, options?: ThrottleOptions): void
  /** Drops throttles not yet used (between tests). */
  reset(): void
}

/**
 * Creates the mock router.
 *
 * @example
 * ```ts
 * const route = createMockMarketRouter({ urls: { gammaUrl: 'http://localhost:9/gamma' } })
 * const res = await route(new Request('http://localhost:9/gamma/tags'))
 * ```
 */
export function createMockMarketRouter(options: MockRouterOptions = {}, /** @internal */ live?: BookSource, /** @internal */ sent?: SentPrices): MockMarketRouter {
  const urls: MockMarketUrls = { ...DEFAULT_URLS, ...definedOnly(options.urls ?? {}) }
  const now = options.now ?? Date.now
  const pending: ThrottleOptions[] = []
  const limiter = options.rateLimits === undefined || options.rateLimits === false ? undefined : createMockLimiter(options.rateLimits)

  const route = async (request: Request): Promise<Response | undefined> => {
    const url = new URL(request.url)
    const service = serviceOf(urls, url)
    if (service === undefined) return undefined
    const header = request.headers.get('x-mock-throttle')
    const throttle: ThrottleOptions | undefined =
      header === null ? pending.shift() : { status: header === '429' ? 429 : 200, retryAfterSeconds: 1 }
    const [name, base] = service
    const path = url.pathname.slice(new URL(base).pathname.replace(/\/+$/, '').length) || '/'
    if (throttle !== undefined) return name === 'data' && path.startsWith('/v2/') ? throttledV2(throttle) : throttled(throttle)
    const limited = limiter?.(name, path, now())
    if (limited !== undefined) return limited
    if (name === 'gamma') return gamma(path, url.searchParams)
    if (name === 'clob') return clob(path, url.searchParams, request, now(), live, sent)
    // The Data API v2 lives beside v1 on the same host, under `/v2/`.
    if (path.startsWith('/v2/')) return dataV2(path, url.searchParams, now())
    return data(path, url.searchParams, now(), options.tradesPage)
  }
  return Object.assign(route, {
    urls,
    throttle(count: number, throttleOptions: ThrottleOptions = {}) {
      for (let i = 0; i < count; i++) pending.push(throttleOptions)
    },
    reset() {
      pending.length = 0
    },
  })
}

function throttled(t: ThrottleOptions): Response {
  if (t.status === 429) {
    const headers: Record<string, string> = t.retryAfterSeconds === undefined ? {} : { 'retry-after': String(t.retryAfterSeconds) }
    return json({ error: 'Too Many Requests' }, 429, headers)
  }
  return json({ error: 'Too Many Requests' })
}

function throttledV2(t: ThrottleOptions): Response {
  const retryAfter = { 'retry-after': String(t.retryAfterSeconds ?? 1) }
  return t.status === 503 ? v2Error(503, 'request_timeout', 'request timed out', undefined, retryAfter) : v2Error(429, 'rate_limited', 'rate limited', undefined, retryAfter)
}

function serviceOf(urls: MockMarketUrls, url: URL): readonly ['gamma' | 'clob' | 'data', string] | undefined {
  const candidates = [
    ['gamma', urls.gammaUrl],
    ['clob', urls.clobUrl],
    ['data', urls.dataUrl],
  ] as const
  // Longest base first, so `http://h/clob` is not taken for `http://h/` when bases share a host.
  const sorted = [...candidates].sort((a, b) => b[1].length - a[1].length)
  return sorted.find(([, base]) => {
    const b = new URL(base)
    const prefix = b.pathname.replace(/\/+$/, '')
    return url.origin === b.origin && (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`))
  })
}

function definedOnly(o: Partial<MockMarketUrls>): Partial<MockMarketUrls> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))
}
