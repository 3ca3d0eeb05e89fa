/**
 * The per-route rolling-minute limit, shared by every instance on one PostgreSQL: a log of counted hits per route
 * (`rate_hits`), decided in one call of `rate_slot` (migration 2) under the route's advisory lock, so instances
 * hitting at once never count past the limit. The semantics are the in-process limiter's and Redis': at most
 * `limit` counted hits in any window (booked ones included), `Retry-After` when the window frees a slot. Time is
 * PostgreSQL's own clock (instances' clocks may disagree), unless a clock is given (the tests' fake one).
 */
import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import type { RateBooking, RateDecision, RateLimiter } from '../../../core/types.js'

/** The window the limiter counts over. */
export const RATE_WINDOW_MS = 60_000

const ALLOWED: RateDecision = Object.freeze({ ok: true })

/** A rate limiter over `pool` in `schema`; a database error throws (the request is answered 503). */
export function postgresLimiter(pool: () => pg.Pool, schema: string, now?: () => number, windowMs = RATE_WINDOW_MS): Required<RateLimiter> {
  const slot = async (key: string, limit: number, member: string, mode: 'hit' | 'book'): Promise<number> => {
    const { rows } = await pool().query<{ wait: string }>(
      `SELECT "${schema}".rate_slot($1, $2, $3, $4, $5, $6) AS wait`, [key, windowMs, limit, member, mode, now?.() ?? null],
    )
    return Number(rows[0]?.wait ?? 0)
  }
  return {
    async hit(key, limit) {
      const wait = await slot(key, limit, randomUUID(), 'hit')
      return wait <= 0 ? ALLOWED : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) }
    },
    async book(key, limit): Promise<RateBooking> {
      const booked = randomUUID()
      const waitMs = await slot(key, limit, booked, 'book')
      return { waitMs, release: async () => void (await pool().query(`DELETE FROM "${schema}".rate_hits WHERE member = $1`, [booked])) }
    },
  }
}
