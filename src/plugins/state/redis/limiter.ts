/**
 * The per-route rolling-minute limit, shared by every instance: one Lua script keeps a log of accepted hits in a
 * sorted set and decides atomically, with Redis' own clock (instances' clocks may disagree). The semantics are
 * the in-process limiter's: at most `limit` counted hits in any window (booked ones included), `Retry-After`
 * when the window frees a slot.
 * (rate-limiter-flexible's Redis limiter counts fixed windows, which lets 2×limit through across a boundary.)
 */
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { RateDecision, RateLimiter } from '../../../core/types.js'
import type { Keys } from './keys.js'
import { luaScript } from './script.js'

/**
 * KEYS[1]: the key's log (score: the hit's moment, booked ones ahead of now). ARGV[1]: the window, ARGV[2]: the
 * limit, ARGV[3]: a new member, ARGV[4]: 'hit' (count only now) or 'book' (count at the earliest free moment).
 * Answers how many milliseconds from now the hit fits: counted unless it is a hit that would have to wait.
 */
const SLOT = luaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local live = redis.call('ZCARD', KEYS[1])
local at = now
if live >= limit then
  local nth = redis.call('ZRANGE', KEYS[1], live - limit, live - limit, 'WITHSCORES')
  at = math.max(now, tonumber(nth[2]) + window)
end
if at > now and ARGV[4] == 'hit' then return at - now end
redis.call('ZADD', KEYS[1], at, ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], tonumber(last[2]) - now + window)
return at - now`)

const ALLOWED: RateDecision = Object.freeze({ ok: true })

/** Two hits in one millisecond are two entries. */
const member = () => randomUUID()

/** A rate limiter over the shared Redis; a Redis error throws (the request is answered 503). */
export function redisLimiter(redis: () => Redis, keys: Keys, windowMs = 60_000): Required<RateLimiter> {
  return {
    async hit(key, limit) {
      const wait = Number(await SLOT(redis(), [keys.rate(key)], [windowMs, limit, member(), 'hit']))
      return wait <= 0 ? ALLOWED : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) }
    },
    async book(key, limit) {
      const booked = member()
      const waitMs = Number(await SLOT(redis(), [keys.rate(key)], [windowMs, limit, booked, 'book']))
      return { waitMs, release: async () => void (await redis().zrem(keys.rate(key), booked)) }
    },
  }
}
