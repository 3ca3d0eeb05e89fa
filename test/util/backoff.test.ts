/**
 * The one backoff every waiting loop uses: the doubling and its cap, a requested wait that replaces the doubling
 * but not the cap, and full jitter. The sequences of the loops that use it are pinned here too, so a change to the
 * helper that would change any of them shows.
 */
import { describe, expect, it } from 'vitest'
import { backoffDelay, fullJitter, type Backoff } from '../../src/util/backoff.js'
import { DEFAULT_AGENT_RETRY, DEFAULT_DELIVERY_RETRY, retryDelay } from '../../src/core/jobs/lifecycle/retry-schedule.js'
import { retryPolicy } from '../../src/sdk/retry.js'
import { reconnectDelayMs } from '../../src/sdk/stream/socket.js'

const waits = (backoff: Backoff, n: number) => Array.from({ length: n }, (_, i) => backoffDelay(backoff, i + 1))

describe('backoffDelay', () => {
  it('doubles from the base at each attempt and stops at the cap', () => {
    expect(waits({ baseDelayMs: 100, maxDelayMs: 1000 }, 6)).toEqual([100, 200, 400, 800, 1000, 1000])
  })

  it('takes a requested wait instead of the doubling, still capped', () => {
    const backoff = { baseDelayMs: 100, maxDelayMs: 1000 }
    expect(backoffDelay(backoff, 4, 250)).toBe(250)
    expect(backoffDelay(backoff, 1, 0)).toBe(0)
    expect(backoffDelay(backoff, 1, 5000)).toBe(1000)
  })

  it('stays at the cap however many attempts there were', () => {
    expect(backoffDelay({ baseDelayMs: 100, maxDelayMs: 5000 }, 10_000)).toBe(5000)
  })

  it('gives the waits each loop had before it was shared', () => {
    // The dispatcher's delivery retries: 3, 6, 12... minutes up to 3 h; its agent retries: 2, 4, 8, 15 minutes
    // (before their ±20 % jitter).
    const schedule = (s: typeof DEFAULT_DELIVERY_RETRY) => Array.from({ length: s.attempts - 1 }, (_, i) => retryDelay(s, i + 1, undefined, () => 0.5) / 60_000)
    expect(schedule(DEFAULT_DELIVERY_RETRY)).toEqual([3, 6, 12, 24, 48, 96, 180])
    expect(schedule(DEFAULT_AGENT_RETRY)).toEqual([2, 4, 8, 15])
    // The SDK's request retries by default: 0.5, 1, 2 s, capped at 30 s.
    expect(waits(retryPolicy(undefined), 8)).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000])
    // The job pool's store retries (100 ms doubling to 5 s) and the Redis de-dup wait (2 ms doubling to 50 ms).
    expect(waits({ baseDelayMs: 100, maxDelayMs: 5_000 }, 8)).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000])
    expect(waits({ baseDelayMs: 2, maxDelayMs: 50 }, 6)).toEqual([2, 4, 8, 16, 32, 50])
  })
})

describe('fullJitter', () => {
  it('scales the wait by a random number in [0, 1)', () => {
    expect(fullJitter(400, () => 0.25)).toBe(100)
    expect(fullJitter(400, () => 0)).toBe(0)
    const drawn = fullJitter(400)
    expect(drawn).toBeGreaterThanOrEqual(0)
    expect(drawn).toBeLessThan(400)
  })

  it('is what the market stream waits between reconnects: jitter over the capped doubling', () => {
    const policy = { baseDelayMs: 100, maxDelayMs: 1000, maxAttempts: Infinity, random: () => 0.5 }
    expect([1, 2, 3, 4, 5, 6].map((n) => reconnectDelayMs(policy, n))).toEqual([50, 100, 200, 400, 500, 500])
  })
})
