/**
 * A token bucket sized so that no window of `windowMs` ever holds more than `limit` takes: a tenth of the limit as
 * a burst, the rest refilled evenly over the window. It learns: `slowDown()` halves its rate (down to a sixteenth),
 * and each `recoverMs` without another slow-down doubles it back, up to the full limit.
 */

/** How a bucket learns from throttled answers. */
export interface Learning {
  /** Ms after a slow-down before the rate doubles back (and again after each further such span). */
  readonly recoverMs: number
}

/** The lowest share of its limit a bucket slows down to. */
const MIN_FACTOR = 1 / 16

/** One limit's bucket; every method takes the current time, so a fake clock drives it in tests. */
export class TokenBucket {
  readonly #limit: number
  readonly #windowMs: number
  readonly #learning: Learning
  #tokens: number
  #at: number
  #factor = 1
  #slowedAt = 0

  constructor(limit: number, windowMs: number, learning: Learning, now: number) {
    this.#limit = limit
    this.#windowMs = windowMs
    this.#learning = learning
    this.#tokens = this.#capacity()
    this.#at = now
  }

  /** The share of its limit the bucket runs at now (1 unless a throttle slowed it down). */
  factor(now: number): number {
    this.#refill(now)
    return this.#factor
  }

  /** Ms until a take would succeed (0: now). */
  waitMs(now: number): number {
    this.#refill(now)
    return this.#tokens >= 1 ? 0 : Math.ceil((1 - this.#tokens) / this.#rate())
  }

  /** Takes one token; the caller checked {@link waitMs} first (all buckets of a request are taken together). */
  take(now: number): void {
    this.#refill(now)
    this.#tokens -= 1
  }

  /** A throttled answer: halve the rate and empty the bucket, so the next request waits for a fresh token. */
  slowDown(now: number): void {
    this.#refill(now)
    this.#factor = Math.max(MIN_FACTOR, this.#factor / 2)
    this.#slowedAt = now
    this.#tokens = Math.min(this.#tokens, 0)
  }

  #capacity(): number {
    return Math.max(1, Math.floor((this.#limit * this.#factor) / 10))
  }

  /** Tokens per ms: what the window allows beyond the burst (at least half the limit when the limit is tiny). */
  #rate(): number {
    const perWindow = this.#limit * this.#factor
    return Math.max(perWindow - this.#capacity(), perWindow / 2) / this.#windowMs
  }

  #refill(now: number): void {
    while (this.#factor < 1 && now - this.#slowedAt >= this.#learning.recoverMs) {
      // Accrue at the slow rate up to the moment it doubles, then go on at the new one.
      this.#accrue(this.#slowedAt + this.#learning.recoverMs)
      this.#factor = Math.min(1, this.#factor * 2)
      this.#slowedAt += this.#learning.recoverMs
    }
    this.#accrue(now)
  }

  #accrue(until: number): void {
    if (until <= this.#at) return
    this.#tokens = Math.min(this.#capacity(), this.#tokens + (until - this.#at) * this.#rate())
    this.#at = until
  }
}
