/**
 * The one reader of `Retry-After` (RFC 9110 §10.2.3), shared by the market SDK's retries and the delivery targets'
 * error classification. Lives in `src/util/`, which imports nothing, so the SDK can use it without reaching into
 * the gateway's core.
 */

/**
 * A `Retry-After` value in milliseconds from `now`: delta-seconds (fractions allowed, rounded up to a whole
 * millisecond) or an HTTP date (a date already past is 0). Undefined when the header is absent, blank, negative
 * or neither form, so the caller falls back to its own backoff instead of trusting a bad value.
 *
 * @example
 * parseRetryAfter(response.headers.get('retry-after')) // '7' → 7000, 'Wed, 21 Oct 2026 07:28:00 GMT' → ms until then
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : undefined
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}
