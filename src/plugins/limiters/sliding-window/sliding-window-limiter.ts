import type { Clock, RateDecision, RateLimiter } from '../../../core/types.js'
import { sweepFront } from './sweep.js'

/** Options of {@link slidingWindowLimiter}. */
export interface SlidingWindowOptions {
  /** Milliseconds since the epoch; inject a fake one in tests. Defaults to `Date.now`. */
  readonly now?: Clock | undefined
  /** Length of the rolling window. Defaults to 60,000 ms: `rate_limit` is per minute. */
  readonly windowMs?: number | undefined
}

/** Accepted hits of one key, oldest first; `times[head..]` are the live ones. */
interface Window {
  times: number[]
  head: number
}

const ALLOWED: RateDecision = Object.freeze({ ok: true })

/**
 * An in-process {@link RateLimiter} over a rolling window: a key may have at most `limit` accepted hits in any
 * `windowMs`. Unlike a fixed per-minute bucket it never lets a burst of 2×limit straddle a minute boundary.
 *
 * @example
 * ```ts
 * const limiter = slidingWindowLimiter()
 * const decision = limiter.hit('github-pr-review', 30)
 * if (!decision.ok) answer429(decision.retryAfterSeconds)
 * ```
 */
export function slidingWindowLimiter(options: SlidingWindowOptions = {}): RateLimiter {
  const now = options.now ?? Date.now
  const windowMs = options.windowMs ?? 60_000
  const windows = new Map<string, Window>()

  return {
    hit(key, limit) {
      const t = now()
      const cutoff = t - windowMs
      // Keys are re-inserted on every accepted hit, so the front holds the longest-idle ones.
      sweepFront(windows, (w) => (w.times.at(-1) ?? -Infinity) <= cutoff)
      const w = windows.get(key) ?? { times: [], head: 0 }
      while (w.head < w.times.length && (w.times[w.head] ?? Infinity) <= cutoff) w.head++
      if (w.times.length - w.head >= limit) {
        const oldest = w.times[w.head] ?? t
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - t) / 1000)) }
      }
      // Compact once the dead prefix outgrows the live part: O(1) amortised, memory at most ~2×limit per key.
      if (w.head > 0 && w.head * 2 >= w.times.length) {
        w.times = w.times.slice(w.head)
        w.head = 0
      }
      w.times.push(t)
      windows.delete(key)
      windows.set(key, w)
      return ALLOWED
    },
  }
}
