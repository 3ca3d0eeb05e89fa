/**
 * The retry policy of idempotent requests: which failures are worth another try and how long to wait.
 * Kept apart from the transport so tests can drive it with an injected `sleep` instead of real time.
 */

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

/** The policy with every default filled in. */
export interface RetryPolicy {
  readonly limit: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
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

/** Delay before retry number `attempt` (1-based): the service's Retry-After if it gave one, else exponential. */
export function backoffMs(policy: RetryPolicy, attempt: number, retryAfterMs: number | undefined): number {
  const exponential = policy.baseDelayMs * 2 ** (attempt - 1)
  return Math.min(policy.maxDelayMs, retryAfterMs ?? exponential)
}

/** Parses a `Retry-After` header (delta seconds or an HTTP date) into ms from `now`; undefined if absent or bad. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** A timer-based wait that stops early, rejecting with the signal's reason, when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
