/**
 * The per-route rolling-minute limit, shared by every instance on one PostgreSQL: a log of counted hits per route
 * (`rate_hits`) and its live count (`rate_counts`), decided in one call of `rate_slot` (migration 5) under the
 * route's count row, a turn's requests in one round trip (`rate_slots`), so instances
 * hitting at once never count past the limit. The semantics are the in-process limiter's and Redis': at most
 * `limit` counted hits in any window (booked ones included), `Retry-After` when the window frees a slot. Time is
 * PostgreSQL's own clock (instances' clocks may disagree), unless a clock is given (the tests' fake one).
 */
import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import type { RateBooking, RateDecision, RateLimiter } from '../../../core/types.js'
import { perTurn } from './turn-batch.js'

/** The window the limiter counts over. */
export const RATE_WINDOW_MS = 60_000

const ALLOWED: RateDecision = Object.freeze({ ok: true })

/** One request's ask of rate_slot: its route, limit, entry in the log, mode and (a test's fake clock) time. */
interface Slot {
  readonly key: string
  readonly limit: number
  readonly member: string
  readonly mode: 'hit' | 'book'
  readonly at: number | undefined
}

/** A rate limiter over `pool` in `schema`; a database error throws (the request is answered 503). */
export function postgresLimiter(pool: () => pg.Pool, schema: string, now?: () => number, windowMs = RATE_WINDOW_MS): Required<RateLimiter> {
  // A turn's decisions in one call of rate_slots (migration 5), each as rate_slot decides it, in order.
  const slot = perTurn<Slot, number>(async (slots) => {
    const { rows } = await pool().query<{ waits: string[] }>({
      name: `${schema}.rate_slots`,
      text: `SELECT "${schema}".rate_slots($1, $2, $3, $4, $5, $6) AS waits`,
      values: [slots.map((s) => s.key), slots.map(() => windowMs), slots.map((s) => s.limit), slots.map((s) => s.member), slots.map((s) => s.mode), slots.map((s) => s.at ?? null)],
    })
    return (rows[0]?.waits ?? []).map(Number)
  })
  return {
    async hit(key, limit) {
      const wait = await slot({ key, limit, member: randomUUID(), mode: 'hit', at: now?.() })
      return wait <= 0 ? ALLOWED : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) }
    },
    async book(key, limit): Promise<RateBooking> {
      const booked = randomUUID()
      const waitMs = await slot({ key, limit, member: booked, mode: 'book', at: now?.() })
      return { waitMs, release: async () => void (await pool().query(`SELECT "${schema}".rate_release($1)`, [booked])) }
    },
  }
}
