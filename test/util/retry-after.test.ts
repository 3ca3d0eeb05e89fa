/**
 * The one `Retry-After` reader, used by the SDK's retries and by the delivery targets: both forms of the header,
 * and every value that is not one of them left to the caller's own backoff.
 */
import { describe, expect, it } from 'vitest'
import { parseRetryAfter } from '../../src/util/retry-after.js'

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 1, 12)

  it.each([
    ['7', 7000], ['1.5', 1500], ['0', 0], [' 3 ', 3000], ['0.0004', 1],
    ['Thu, 01 Jan 2026 12:00:30 GMT', 30_000], ['Thu, 01 Jan 2026 11:00:00 GMT', 0],
  ])('reads %j as %i ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms)
  })

  it.each([null, undefined, '', '  ', 'soon', '-3', 'Infinity'])('ignores %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined()
  })

  it('measures a date from the current time by default', () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString()
    const ms = parseRetryAfter(inTenSeconds)
    expect(ms).toBeGreaterThan(8_000)
    expect(ms).toBeLessThanOrEqual(10_000)
  })
})
