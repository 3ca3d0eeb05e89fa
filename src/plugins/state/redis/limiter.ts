/**
 * The per-route rolling-minute limit, shared by every instance: one Lua script keeps a log of accepted hits in a
 * sorted set and decides atomically, with Redis' own clock (instances' clocks may disagree). The semantics are
 * the in-process limiter's: at most `limit` accepted hits in any window, `Retry-After` when the oldest leaves it.
 * (rate-limiter-flexible's Redis limiter counts fixed windows, which lets 2×limit through across a boundary.)
 */
import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { RateDecision, RateLimiter } from '../../../core/types.js'
import type { Keys } from './keys.js'

const HIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return tonumber(oldest[2]) + window - now
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 0`

const ALLOWED: RateDecision = Object.freeze({ ok: true })

/** A rate limiter over the shared Redis; a Redis error throws (the request is answered 503). */
export function redisLimiter(redis: () => Redis, keys: Keys, windowMs = 60_000): RateLimiter {
  return {
    async hit(key, limit) {
      const member = randomBytes(9).toString('base64url') // two hits in one millisecond are two entries
      const wait = Number(await redis().eval(HIT, 1, keys.rate(key), windowMs, limit, member))
      return wait <= 0 ? ALLOWED : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) }
    },
  }
}
