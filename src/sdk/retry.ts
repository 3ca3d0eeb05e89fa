/**
 * The retry policy of idempotent requests: which failures are worth another try and how long to wait.
 * Kept apart from the transport so tests can drive it with an injected `sleep` instead of real time. The waits
 * themselves are the shared backoff (`src/util/backoff.ts`), which the gateway's retries use too.
 */
import type { Backoff } from '../util/backoff.js'
import { abortableSleep } from '../util/abortable-sleep.js'

/** How the client retries reads that failed with 429, 5xx, a throttled body, a timeout or a network error. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 disables). */
  readonly limit?: number | undefined
  /** First backoff in ms, doubled at each retry (default 500). */
  readonly baseDelayMs?: number | undefined
  /** Upper bound of one wait, `Retry-After` included (default 30,000). */
  readonly maxDelayMs?: number | undefined
  /** Waits `ms`; replace it in tests to avoid real sleeping. Must reject when `signal` aborts. */
  readonly sleep?: ((ms: number, signal: AbortSignal | undefined) => Promise<void>) | undefined
}

/** The policy with every default filled in; its delays are a {@link Backoff}. */
export interface RetryPolicy extends Backoff {
  readonly limit: number
  readonly sleep: (ms: number, signal: AbortSignal | undefined) => Promise<void>
}

/** Resolves the options of a client into a full policy; `false` or `0` disables retrying. */
export function retryPolicy(options: RetryOptions | number | false | undefined): RetryPolicy {
  const o: RetryOptions = typeof options === 'object' ? options : { limit: options === false ? 0 : options }
  return {
    limit: Math.max(0, o.limit ?? 3),
    baseDelayMs: o.baseDelayMs ?? 500,
    maxDelayMs: o.maxDelayMs ?? 30_000,
    sleep: o.sleep ?? sleep,
  }
}

/** A timer-based wait that stops early, rejecting with the signal's reason, when the signal aborts. */
export const sleep = abortableSleep
