/**
 * The one exponential backoff of every loop that waits before trying again: the SDK's request retries and stream
 * reconnects, the dispatcher's delivery retries, the job pool's store retries and the Redis de-dup wait. Lives in
 * `src/util/`, which imports nothing, so the SDK can use it without reaching into the gateway's core.
 */

/** How a wait grows: `baseDelayMs` before the first retry, twice as long before each next one, at most `maxDelayMs`. */
export interface Backoff {
  readonly baseDelayMs: number
  readonly maxDelayMs: number
}

/**
 * The wait before retry number `attempt` (1-based): `baseDelayMs × 2^(attempt − 1)`, never more than `maxDelayMs`.
 * A wait the other side asked for (`requestedMs`, from a `Retry-After`) replaces the doubling but not the cap, so a
 * server cannot park a caller for an hour.
 *
 * @example
 * backoffDelay({ baseDelayMs: 100, maxDelayMs: 5_000 }, 3) // 400
 */
export function backoffDelay(backoff: Backoff, attempt: number, requestedMs?: number): number {
  return Math.min(backoff.maxDelayMs, requestedMs ?? backoff.baseDelayMs * 2 ** (attempt - 1))
}

/**
 * Full jitter: a uniformly random wait in `[0, delayMs)`, so many clients that lost the same server do not all come
 * back at the same moment. `random` is replaceable in tests.
 */
export function fullJitter(delayMs: number, random: () => number = Math.random): number {
  return random() * delayMs
}
