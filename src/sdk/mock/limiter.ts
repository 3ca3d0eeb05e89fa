/**
 * The mock's model of the services' rate limits: a sliding window per service and per listed endpoint (the same
 * table as the client's budget). Past a limit, the catalog and order-book services answer 429 without
 * `Retry-After`, as Cloudflare does; the trades service answers its `200 {"error":"Too Many Requests"}`.
 */
import type { Service } from '../service.js'
import { keysOf, LIMIT_WINDOW_MS, PUBLISHED_LIMITS, type LimitKey, type Limits } from '../budget/limits.js'
import { json } from './respond.js'

/** The mock's `rateLimits` option: `true` for the published limits, or other limits and window. */
export interface MockRateLimits {
  /** Merged over the published limits. */
  readonly limits?: Limits | undefined
  /** Default 10,000 ms, as published. */
  readonly windowMs?: number | undefined
}

/** Counts requests and answers those past a limit; `undefined` when the request may be served. */
export type MockLimiter = (service: Service, path: string, now: number) => Response | undefined

/** Builds the limiter; requests it throttles do not count against the window (only served ones do). */
export function createMockLimiter(options: MockRateLimits | true): MockLimiter {
  const o = options === true ? {} : options
  const limits: Limits = { ...PUBLISHED_LIMITS, ...o.limits }
  const windowMs = o.windowMs ?? LIMIT_WINDOW_MS
  // The times of the served requests in the window, oldest first, per limit.
  const served = new Map<LimitKey, number[]>()
  return (service, path, now) => {
    const keys = keysOf(limits, service, path)
    const times = keys.map((key) => {
      let list = served.get(key)
      if (list === undefined) served.set(key, (list = []))
      let drop = 0
      while (drop < list.length && (list[drop] ?? 0) <= now - windowMs) drop++
      if (drop > 0) list.splice(0, drop)
      return list
    })
    if (keys.some((key, i) => (times[i]?.length ?? 0) >= (limits[key] ?? Infinity))) {
      return service === 'data' ? json({ error: 'Too Many Requests' }) : json({ error: 'Too Many Requests' }, 429)
    }
    for (const list of times) list.push(now)
    return undefined
  }
}
