import { describe, expect, it } from 'vitest'
import { slidingWindowLimiter } from '../../src/plugins/limiters/sliding-window/sliding-window-limiter.js'
import { rateLimiterContract } from '../../src/testing/rate-limiter.js'
import { fakeClock } from '../../src/testing/clock.js'

rateLimiterContract('slidingWindowLimiter', (now) => slidingWindowLimiter({ now }))

describe('slidingWindowLimiter', () => {
  it('refuses the 31st request of a minute at the default limit of 30', () => {
    const clock = fakeClock()
    const limiter = slidingWindowLimiter({ now: clock.now })
    for (let i = 0; i < 30; i++) {
      expect(limiter.hit('github-pr-review', 30)).toEqual({ ok: true })
      clock.advance(1_000)
    }
    // The first hit was 30 s ago: it leaves the window in 30 s.
    expect(limiter.hit('github-pr-review', 30)).toEqual({ ok: false, retryAfterSeconds: 30 })
  })

  it('does not let a burst straddle a window boundary (unlike a fixed per-minute bucket)', () => {
    const clock = fakeClock()
    const limiter = slidingWindowLimiter({ now: clock.now })
    clock.advance(59_000)
    for (let i = 0; i < 10; i++) limiter.hit('r', 10)
    clock.advance(2_000) // a new calendar minute, but the ten hits are 2 s old
    expect(limiter.hit('r', 10)).toMatchObject({ ok: false })
  })

  it('honours a custom window', () => {
    const clock = fakeClock()
    const limiter = slidingWindowLimiter({ now: clock.now, windowMs: 1_000 })
    expect(limiter.hit('r', 1)).toEqual({ ok: true })
    expect(limiter.hit('r', 1)).toEqual({ ok: false, retryAfterSeconds: 1 })
    clock.advance(1_000)
    expect(limiter.hit('r', 1)).toEqual({ ok: true })
  })

  it('refuses everything at a limit of 0', () => {
    const limiter = slidingWindowLimiter({ now: fakeClock().now })
    expect(limiter.hit('r', 0)).toEqual({ ok: false, retryAfterSeconds: 60 })
  })

  it('keeps counting right across many windows (the trimmed prefix is compacted)', async () => {
    const clock = fakeClock()
    const limiter = slidingWindowLimiter({ now: clock.now })
    let allowed = 0
    // 10 minutes of one attempt every 100 ms against a limit of 30: 30 allowed per rolling minute.
    for (let i = 0; i < 6_000; i++) {
      if ((await limiter.hit('r', 30)).ok) allowed++
      clock.advance(100)
    }
    expect(allowed).toBe(300)
  })
})
