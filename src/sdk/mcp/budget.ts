/**
 * The server's request budget: the SDK's own (one client, so every call of every tool draws on the same buckets),
 * with one change for agents: a call never waits longer than `maxWaitMs` for it. An agent waiting minutes on a
 * tool is worse than one told the budget is spent and when it frees up.
 */
import type { RateLimitOptions } from '../budget/request-budget.js'
import { sleep } from '../retry.js'

/** Options of {@link mcpRateLimit}. */
export interface McpBudgetOptions {
  /** Requests per window to each service (default: the services' published limits). */
  readonly perWindow?: number | undefined
  /** The window of `perWindow` in ms (default 10,000, as the services publish their limits). */
  readonly windowMs?: number | undefined
  /** The longest a request waits for the budget before its call is refused with {@link BudgetExhaustedError}. */
  readonly maxWaitMs: number
}

/** A call refused because the budget would have made it wait longer than the server allows. */
export class BudgetExhaustedError extends Error {
  override readonly name = 'BudgetExhaustedError'
  /** Ms until the budget has a request to spend again. */
  readonly retryAfterMs: number

  constructor(waitMs: number, maxWaitMs: number) {
    super(
      `the server's request budget is spent for now: the next request could go in ${seconds(waitMs)}, longer than ` +
        `the ${seconds(maxWaitMs)} a call may wait; call again later, or with fewer calls at once`,
    )
    this.retryAfterMs = waitMs
  }
}

const seconds = (ms: number): string => `${Math.ceil(ms / 100) / 10} s`

/**
 * The `rateLimit` option of the server's client.
 *
 * @example
 * ```ts
 * const pm = createMarketClient({ rateLimit: mcpRateLimit({ perWindow: 50, maxWaitMs: 10_000 }) })
 * ```
 */
export function mcpRateLimit(options: McpBudgetOptions): RateLimitOptions {
  const { perWindow, maxWaitMs } = options
  return {
    limits: perWindow === undefined ? undefined : { gamma: perWindow, clob: perWindow, data: perWindow },
    windowMs: options.windowMs,
    // The budget asks to sleep only when it has no token: a wait past the bound is refused there, before any request.
    sleep: (ms, signal) => (ms > maxWaitMs ? Promise.reject(new BudgetExhaustedError(ms, maxWaitMs)) : sleep(ms, signal)),
  }
}
