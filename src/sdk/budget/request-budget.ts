/**
 * The client's request budget: one {@link TokenBucket} per limit (each service, and each endpoint with a published
 * limit), shared by every call of one client, its `concurrency` fan-outs and its exports included. A request goes
 * when every bucket it counts against has a token; a throttled answer slows those buckets down for a while.
 */
import type { Service } from '../http.js'
import { sleep as timerSleep } from '../retry.js'
import { keysOf, LIMIT_WINDOW_MS, PUBLISHED_LIMITS, type LimitKey, type Limits } from './limits.js'
import { TokenBucket } from './token-bucket.js'
import { Turns, type Release } from './turns.js'

/** The `rateLimit` option of the client. */
export interface RateLimitOptions {
  /**
   * Requests per window by service (`'data'`) or endpoint (`'data /trades'`), merged over the published limits; an
   * endpoint path covers the paths under it (`'gamma /markets'` counts `/markets/keyset` too).
   */
  readonly limits?: Limits | undefined
  /** The window the limits are counted in, in ms (default 10,000, as the services publish them). */
  readonly windowMs?: number | undefined
  /** The share of each limit the budget spends (default 0.9: requests in flight reach the service later than sent). */
  readonly share?: number | undefined
  /** Ms a throttled answer halves the rate for; each such span after the last throttle doubles it back (default 30,000). */
  readonly recoverMs?: number | undefined
  /** The clock in ms (default `Date.now`); replace it, with `sleep`, to drive the budget with a fake clock. */
  readonly now?: (() => number) | undefined
  /** Waits `ms`; must reject when `signal` aborts (default a timer). */
  readonly sleep?: ((ms: number, signal: AbortSignal | undefined) => Promise<void>) | undefined
}

/** Internal: the budget as the transport uses it. */
export interface RequestBudget {
  /** Ms until a request to `service` `path` may go (0: now). */
  waitMs(service: Service, path: string): number
  /**
   * Waits for the turn of the requests that count against the same limits as `service` `path` (first come, first
   * served); the turn comes back without a promise when nobody holds it.
   */
  turn(service: Service, path: string, signal: AbortSignal | undefined): Release | Promise<Release>
  /** Takes the request's tokens if all are there now; false if another request took one first. */
  tryTake(service: Service, path: string): boolean
  /** The service throttled a request to `service` `path`: slow its buckets down. */
  slowDown(service: Service, path: string): void
  /** The share of its limit each bucket that exists runs at (1 = full speed). */
  factors(): Map<LimitKey, number>
  readonly sleep: (ms: number, signal: AbortSignal | undefined) => Promise<void>
}

/** Builds the budget of one client, or `undefined` for `rateLimit: false`. */
export function createRequestBudget(options: RateLimitOptions | false | undefined): RequestBudget | undefined {
  if (options === false) return undefined
  const o = options ?? {}
  const now = o.now ?? Date.now
  const windowMs = o.windowMs ?? LIMIT_WINDOW_MS
  const share = o.share ?? 0.9
  const limits: Limits = { ...PUBLISHED_LIMITS, ...o.limits }
  const learning = { recoverMs: o.recoverMs ?? 30_000 }
  // Made on first use: a client that only reads books never keeps the catalog's buckets.
  const buckets = new Map<LimitKey, TokenBucket>()
  const bucketsOf = (service: Service, path: string): TokenBucket[] =>
    keysOf(limits, service, path).map((key) => {
      let bucket = buckets.get(key)
      if (bucket === undefined) {
        bucket = new TokenBucket(Math.max(1, (limits[key] ?? 1) * share), windowMs, learning, now())
        buckets.set(key, bucket)
      }
      return bucket
    })
  const turns = new Turns()
  const budget: RequestBudget = {
    turn(service, path, signal) {
      const name = `${service} ${keysOf(limits, service, path).join(' ')}`
      return turns.tryEnter(name) ?? turns.enter(name, signal)
    },
    waitMs(service, path) {
      const t = now()
      let wait = 0
      for (const b of bucketsOf(service, path)) wait = Math.max(wait, b.waitMs(t))
      return wait
    },
    tryTake(service, path) {
      const t = now()
      const all = bucketsOf(service, path)
      if (all.some((b) => b.waitMs(t) > 0)) return false
      for (const b of all) b.take(t)
      return true
    },
    slowDown(service, path) {
      const t = now()
      for (const b of bucketsOf(service, path)) b.slowDown(t)
    },
    factors() {
      const t = now()
      return new Map([...buckets].map(([key, b]) => [key, b.factor(t)]))
    },
    sleep: o.sleep ?? timerSleep,
  }
  return budget
}
