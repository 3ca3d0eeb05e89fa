/**
 * The client's request budget: one {@link TokenBucket} per limit (each service, and each endpoint with a published
 * limit), shared by every call of one client, its `concurrency` fan-outs and its exports included. A request goes
 * when every bucket it counts against has a token; a throttled answer slows those buckets down for a while.
 */
import type { Service } from '../service.js'
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

/** Internal: the budget's side of one request, made once per request (the lookups are done once). */
export interface Gate {
  /** Waits for the turn among requests on the same limits (first come, first served); no promise when it is free. */
  turn(signal: AbortSignal | undefined): Release | Promise<Release>
  /** Ms until the request may go (0: now). */
  waitMs(): number
  /** Takes the request's tokens if all are there now; false if another request took one first. */
  tryTake(): boolean
  /** The service throttled this request: slow its buckets down. */
  slowDown(): void
}

/** Internal: the budget as the transport uses it. */
export interface RequestBudget {
  /** The gate of a request to `service` `path`. */
  gate(service: Service, path: string): Gate
  /** The share of its limit each bucket that exists runs at (1 = full speed). */
  factors(): Map<LimitKey, number>
  readonly sleep: (ms: number, signal: AbortSignal | undefined) => Promise<void>
}

/** Gates kept for reuse; paths with ids in them (`/markets/slug/…`) would grow the map without end, so it is cleared past this. */
const MAX_GATES = 256

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
  const bucketOf = (key: LimitKey): TokenBucket => {
    let bucket = buckets.get(key)
    if (bucket === undefined) {
      bucket = new TokenBucket(Math.max(1, (limits[key] ?? 1) * share), windowMs, learning, now())
      buckets.set(key, bucket)
    }
    return bucket
  }
  const turns = new Turns()
  const gates = new Map<string, Gate>()
  const makeGate = (service: Service, path: string): Gate => {
    const keys = keysOf(limits, service, path)
    const mine = keys.map(bucketOf)
    const name = keys.join(' ')
    const waitMs = (): number => {
      const t = now()
      let wait = 0
      for (const b of mine) wait = Math.max(wait, b.waitMs(t))
      return wait
    }
    return {
      turn: (signal) => turns.tryEnter(name) ?? turns.enter(name, signal),
      waitMs,
      tryTake() {
        if (waitMs() > 0) return false
        const t = now()
        for (const b of mine) b.take(t)
        return true
      },
      slowDown() {
        const t = now()
        for (const b of mine) b.slowDown(t)
      },
    }
  }
  return {
    gate(service, path) {
      const id = `${service}${path}`
      let gate = gates.get(id)
      if (gate === undefined) {
        if (gates.size >= MAX_GATES) gates.clear()
        gates.set(id, (gate = makeGate(service, path)))
      }
      return gate
    },
    factors() {
      const t = now()
      return new Map([...buckets].map(([key, b]) => [key, b.factor(t)]))
    },
    sleep: o.sleep ?? timerSleep,
  }
}
