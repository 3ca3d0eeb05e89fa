/**
 * A flood of forged requests must not become a flood of log lines (a full disk is a denial of service too):
 * the first of a kind is logged, then at most one line per window, saying how many were left out meanwhile.
 */
import type { Clock, LogFields, Logger } from './types.js'

/** Logs a warning at most once per `windowMs` per key; the next line counts the ones left out (`suppressed`). */
export type ThrottledWarn = (key: string, message: string, fields: LogFields) => void

/** Creates a {@link ThrottledWarn}. Keys should be few (a route and a fixed reason), as each keeps a small entry. */
export function throttledWarn(log: Logger, clock: Clock, windowMs = 10_000): ThrottledWarn {
  const windows = new Map<string, { until: number; suppressed: number }>()
  return (key, message, fields) => {
    const now = clock()
    const window = windows.get(key)
    if (window !== undefined && now < window.until) {
      window.suppressed++
      return
    }
    log.warn(message, window?.suppressed ? { ...fields, suppressed: window.suppressed } : fields)
    windows.set(key, { until: now + windowMs, suppressed: 0 })
  }
}
