/**
 * A flood of requests nobody authenticated must not become a flood of log lines (a full disk is a denial of
 * service too): the first of a kind is logged, then at most one line per window, saying how many were left
 * out meanwhile. Forged signatures, unknown routes, bodies that are too large or not JSON, aborted uploads,
 * malformed HTTP and refusals under load all go through one.
 */
import type { Clock, LogFields, Logger } from '../types.js'

/** Logs at most once per `windowMs` per key; the next line counts the ones left out (`suppressed`). */
export type ThrottledWarn = (key: string, message: string, fields: LogFields) => void

/** Options of {@link throttledLog}. */
export interface ThrottleOptions {
  /** 10 s by default. */
  readonly windowMs?: number | undefined
  /** `warn` by default. */
  readonly level?: 'debug' | 'info' | 'warn' | 'error' | undefined
}

/** Creates a throttled logger. Keys should be few (a route and a fixed reason), as each keeps a small entry. */
export function throttledLog(log: Logger, clock: Clock, options: ThrottleOptions = {}): ThrottledWarn {
  const windowMs = options.windowMs ?? 10_000
  const level = options.level ?? 'warn'
  const windows = new Map<string, { until: number; suppressed: number }>()
  return (key, message, fields) => {
    const now = clock()
    const window = windows.get(key)
    if (window !== undefined && now < window.until) {
      window.suppressed++
      return
    }
    log[level](message, window?.suppressed ? { ...fields, suppressed: window.suppressed } : fields)
    windows.set(key, { until: now + windowMs, suppressed: 0 })
  }
}

/** {@link throttledLog} at `warn`. */
export function throttledWarn(log: Logger, clock: Clock, windowMs = 10_000): ThrottledWarn {
  return throttledLog(log, clock, { windowMs })
}
