import type { Clock, RateBooking, RateDecision, RateLimiter } from '../../../core/types.js'
import { sweepFront } from './sweep.js'

/** Options of {@link slidingWindowLimiter}. */
export interface SlidingWindowOptions {
  /** Milliseconds since the epoch; inject a fake one in tests. Defaults to `Date.now`. */
  readonly now?: Clock | undefined
  /** Length of the rolling window. Defaults to 60,000 ms: `rate_limit` is per minute. */
  readonly windowMs?: number | undefined
}

/** Counted hits of one key in time order (booked ones lie ahead of now); `times[head..]` are the live ones. */
interface Window {
  times: number[]
  head: number
}

const ALLOWED: RateDecision = Object.freeze({ ok: true })

/**
 * An in-process {@link RateLimiter} over a rolling window: a key may have at most `limit` counted hits in any
 * `windowMs`. Unlike a fixed per-minute bucket it never lets a burst of 2×limit straddle a minute boundary.
 * Booked hits (a deferred job's moment) count like the others, so a hit made now never crowds a window that
 * booked ones have filled.
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

  /** The key's live hits, the dead ones dropped; and the earliest moment at or after `t` that one more fits. */
  function open(key: string, limit: number, t: number): { w: Window; at: number } {
    const cutoff = t - windowMs
    // Keys are re-inserted on every counted hit, so the front holds the longest-idle ones.
    sweepFront(windows, (w) => (w.times.at(-1) ?? -Infinity) <= cutoff)
    const w = windows.get(key) ?? { times: [], head: 0 }
    while (w.head < w.times.length && (w.times[w.head] ?? Infinity) <= cutoff) w.head++
    const live = w.times.length - w.head
    // Fewer than `limit` hits after the cutoff (booked ones included): every window holding t has room. Else
    // the window ending at `at` must leave out all but `limit - 1` of the latest hits.
    const at = live < limit ? t : Math.max(t, (w.times[w.times.length - limit] ?? t) + windowMs)
    return { w, at }
  }

  function count(key: string, w: Window, at: number): void {
    // Compact once the dead prefix outgrows the live part: O(1) amortised, memory at most ~2×live per key.
    if (w.head > 0 && w.head * 2 >= w.times.length) {
      w.times = w.times.slice(w.head)
      w.head = 0
    }
    // Usually the latest; a hit made now while later ones are booked goes before them.
    let i = w.times.length
    while (i > w.head && (w.times[i - 1] ?? -Infinity) > at) i--
    w.times.splice(i, 0, at)
    windows.delete(key)
    windows.set(key, w)
  }

  function uncount(key: string, at: number): void {
    const w = windows.get(key)
    const i = w ? w.times.lastIndexOf(at) : -1
    if (w && i >= w.head) w.times.splice(i, 1)
  }

  return {
    hit(key, limit) {
      const t = now()
      const { w, at } = open(key, limit, t)
      if (at > t) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((at - t) / 1000)) }
      count(key, w, t)
      return ALLOWED
    },
    book(key, limit): RateBooking {
      const t = now()
      const { w, at } = open(key, limit, t)
      count(key, w, at)
      let released = false
      return {
        waitMs: at - t,
        release() {
          if (released) return
          released = true
          uncount(key, at)
        },
      }
    },
  }
}
