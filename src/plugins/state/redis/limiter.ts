/**
 * The per-route rolling-minute limit, shared by every instance: one Lua script keeps a log of accepted hits in a
 * sorted set and decides atomically, with Redis' own clock (instances' clocks may disagree). The semantics are
 * the in-process limiter's: at most `limit` counted hits in any window (booked ones included), `Retry-After`
 * when the window frees a slot.
 * (rate-limiter-flexible's Redis limiter counts fixed windows, which lets 2×limit through across a boundary.)
 */
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { RateBooking, RateDecision, RateLimiter } from '../../../core/types.js'
import type { Keys } from './keys.js'
import { luaScript } from './script.js'

/**
 * The slot's Lua, over the log at `key` with the window, limit, new member and mode in `arg(1)` to `arg(4)`
 * ('hit': count only now; 'book': count at the earliest free moment). Sets `wait` to how many milliseconds from
 * now the hit fits: counted unless it is a hit that would have to wait. Shared with the de-dup reservation,
 * which runs it in its own script (dedup.ts).
 */
export function slotLua(key: string, arg: (n: number) => string): string {
  return `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(${arg(1)})
local limit = tonumber(${arg(2)})
redis.call('ZREMRANGEBYSCORE', ${key}, '-inf', now - window)
local live = redis.call('ZCARD', ${key})
local at = now
if live >= limit then
  local nth = redis.call('ZRANGE', ${key}, live - limit, live - limit, 'WITHSCORES')
  at = math.max(now, tonumber(nth[2]) + window)
end
local wait = at - now
if not (wait > 0 and ${arg(4)} == 'hit') then
  redis.call('ZADD', ${key}, at, ${arg(3)})
  local last = redis.call('ZRANGE', ${key}, -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', ${key}, tonumber(last[2]) - now + window)
end`
}

/** KEYS[1]: the key's log; ARGV: the window, the limit, a new member, the mode. Answers the wait. */
const SLOT = luaScript(`${slotLua('KEYS[1]', (n) => `ARGV[${n}]`)}
return wait`)

const ALLOWED: RateDecision = Object.freeze({ ok: true })

/** Two hits in one millisecond are two entries. */
export const member = () => randomUUID()

/** The decision of a hit that fits in `wait` ms. */
export function hitDecision(wait: number): RateDecision {
  return wait <= 0 ? ALLOWED : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) }
}

/** The booking of `booked` (a member of the log at `logKey`) `waitMs` from now; releasing removes it. */
export function booking(redis: () => Redis, logKey: string, booked: string, waitMs: number): RateBooking {
  return { waitMs, release: async () => void (await redis().zrem(logKey, booked)) }
}

/** The window the limiter counts over. */
export const RATE_WINDOW_MS = 60_000

/** A rate limiter over the shared Redis; a Redis error throws (the request is answered 503). */
export function redisLimiter(redis: () => Redis, keys: Keys, windowMs = RATE_WINDOW_MS): Required<RateLimiter> {
  return {
    async hit(key, limit) {
      return hitDecision(Number(await SLOT(redis(), [keys.rate(key)], [windowMs, limit, member(), 'hit'])))
    },
    async book(key, limit) {
      const booked = member()
      const waitMs = Number(await SLOT(redis(), [keys.rate(key)], [windowMs, limit, booked, 'book']))
      return booking(redis, keys.rate(key), booked, waitMs)
    },
  }
}
