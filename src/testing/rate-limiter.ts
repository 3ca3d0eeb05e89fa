/**
 * The contract every {@link RateLimiter} honours, run by each implementation's own test file. It assumes a
 * rolling window of 60 s: a route's `rate_limit` counts accepted requests per minute.
 */
import { describe, expect, it } from 'vitest'
import type { Clock, RateDecision, RateLimiter } from '../core/types.js'
import { fakeClock } from './clock.js'

const WINDOW = 60_000

/** Runs the rate-limiter contract against limiters made by `make(clock)` (60 s window), one per test. */
export function rateLimiterContract(name: string, make: (clock: Clock) => RateLimiter): void {
  describe(`${name} (RateLimiter contract)`, () => {
    const setup = () => {
      const clock = fakeClock()
      const limiter = make(clock.now)
      const hits = async (key: string, limit: number, n: number): Promise<RateDecision[]> => {
        const out: RateDecision[] = []
        for (let i = 0; i < n; i++) out.push(await limiter.hit(key, limit))
        return out
      }
      return { clock, limiter, hits }
    }
    const allowed = (decisions: RateDecision[]) => decisions.filter((d) => d.ok).length

    it('allows `limit` hits, then refuses with a Retry-After of at least 1 s', async () => {
      const { limiter, hits } = setup()
      expect(allowed(await hits('route', 30, 30))).toBe(30)
      const refused = await limiter.hit('route', 30)
      expect(refused.ok).toBe(false)
      if (!refused.ok) {
        expect(Number.isInteger(refused.retryAfterSeconds)).toBe(true)
        expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1)
        expect(refused.retryAfterSeconds).toBeLessThanOrEqual(WINDOW / 1000)
      }
    })

    it('rolls: a hit leaves the window 60 s after it was made', async () => {
      const { clock, limiter, hits } = setup()
      await hits('route', 3, 1) // t = 0
      clock.advance(20_000)
      await hits('route', 3, 2) // t = 20 s
      expect((await limiter.hit('route', 3)).ok).toBe(false)
      clock.advance(WINDOW - 20_000 - 1) // t = 59.999 s: the first hit is still inside
      const refused = await limiter.hit('route', 3)
      expect(refused).toEqual({ ok: false, retryAfterSeconds: 1 })
      clock.advance(1) // t = 60 s: the first hit has left, the other two have not
      expect(allowed(await hits('route', 3, 2))).toBe(1)
    })

    it('says how long until the oldest hit leaves the window', async () => {
      const { clock, limiter } = setup()
      await limiter.hit('route', 1)
      clock.advance(15_500)
      expect(await limiter.hit('route', 1)).toEqual({ ok: false, retryAfterSeconds: 45 })
    })

    it('allows a full limit again once the window has passed', async () => {
      const { clock, hits } = setup()
      await hits('route', 5, 5)
      clock.advance(WINDOW)
      expect(allowed(await hits('route', 5, 6))).toBe(5)
    })

    it('does not count refused hits', async () => {
      const { clock, limiter, hits } = setup()
      await hits('route', 2, 2)
      clock.advance(30_000)
      expect(allowed(await hits('route', 2, 50))).toBe(0)
      clock.advance(30_000) // the two accepted hits leave; the 50 refused never counted
      expect(allowed(await hits('route', 2, 2))).toBe(2)
      expect((await limiter.hit('route', 2)).ok).toBe(false)
    })

    it('books the moments a full limit frees, each counted: deferred hits stay within the limit in every window', async () => {
      const { limiter, hits } = setup()
      if (!limiter.book) return // a limiter without book makes every route reject; nothing more to hold it to
      await hits('route', 3, 3)
      const waits: number[] = []
      for (let i = 0; i < 27; i++) waits.push((await limiter.book('route', 3)).waitMs)
      expect(waits.slice(0, 6)).toEqual([WINDOW, WINDOW, WINDOW, 2 * WINDOW, 2 * WINDOW, 2 * WINDOW])
      const moments = [0, 0, 0, ...waits]
      for (let i = 3; i < moments.length; i++) expect((moments[i] ?? 0) - (moments[i - 3] ?? 0)).toBeGreaterThanOrEqual(WINDOW)
      // A hit made now must not crowd the windows the booked ones fill: it waits for the last of them.
      const refused = await limiter.hit('route', 3)
      expect(refused).toEqual({ ok: false, retryAfterSeconds: (10 * WINDOW) / 1000 })
    })

    it('books at once while the limit has room, and counts it like a hit', async () => {
      const { limiter } = setup()
      if (!limiter.book) return
      expect((await limiter.book('route', 2)).waitMs).toBe(0)
      expect((await limiter.hit('route', 2)).ok).toBe(true)
      expect((await limiter.hit('route', 2)).ok).toBe(false)
    })

    it('a booking given back no longer counts', async () => {
      const { clock, limiter } = setup()
      if (!limiter.book) return
      await limiter.hit('route', 1)
      const booking = await limiter.book('route', 1)
      expect(booking.waitMs).toBe(WINDOW)
      await booking.release()
      await booking.release() // twice gives back nothing more
      expect((await limiter.book('route', 1)).waitMs).toBe(WINDOW)
      clock.advance(WINDOW)
      expect((await limiter.hit('route', 1)).ok).toBe(false) // the second booking holds this minute
    })

    it('keeps keys independent', async () => {
      const { limiter, hits } = setup()
      await hits('a', 2, 2)
      expect((await limiter.hit('a', 2)).ok).toBe(false)
      expect(allowed(await hits('b', 2, 2))).toBe(2)
    })
  })
}
