/**
 * The Redis backend's notes: one hash per note (`value`, `version`, `expires_at`) under the backend's prefix, so
 * every instance on the Redis shares them. A write is one Lua script that compares the version and writes in the
 * same step, so of two instances writing one note at once exactly one wins.
 *
 * Expiry is decided by `expires_at` against the backend's clock (`now`, which a test fakes), as on every other
 * backend; Redis's own `PEXPIRE` is set as well, an hour past that, only so that a note nobody reads again does
 * not stay in memory forever. The slack keeps Redis's clock (the machine's) from ever forgetting a note before
 * the backend's clock says it expired, whatever the instances' clocks disagree by.
 */
import type { Redis } from 'ioredis'
import { checkedNote, type NoteStore } from '../../../core/jobs/lifecycle/notes.js'
import type { Clock, JsonValue } from '../../../core/types.js'
import type { Keys } from './keys.js'
import { luaScript } from './script.js'

/** How long after a note's expiry (on the backend's clock) Redis drops its key. */
export const NOTE_EXPIRY_SLACK_MS = 3_600_000

/**
 * Compare-and-set of the note at KEYS[1]. ARGV: the expected version, the backend's now, the value's JSON (empty
 * to remove the note), the time to live in ms (empty: kept forever), the slack of Redis's own expiry. Answers the
 * new version, or nil when the stored version (0 for none or an expired one) is not the expected one.
 */
const PUT = luaScript(`
local stored = redis.call('HMGET', KEYS[1], 'version', 'expires_at')
local now = tonumber(ARGV[2])
local version = tonumber(stored[1]) or 0
if stored[2] and tonumber(stored[2]) <= now then version = 0 end
if version ~= tonumber(ARGV[1]) then return nil end
if ARGV[3] == '' then
  redis.call('DEL', KEYS[1])
  return version + 1
end
redis.call('HSET', KEYS[1], 'value', ARGV[3], 'version', version + 1)
if ARGV[4] == '' then
  redis.call('HDEL', KEYS[1], 'expires_at')
  redis.call('PERSIST', KEYS[1])
else
  local ttl = tonumber(ARGV[4])
  redis.call('HSET', KEYS[1], 'expires_at', now + ttl)
  redis.call('PEXPIRE', KEYS[1], math.max(ttl, 0) + tonumber(ARGV[5]))
end
return version + 1
`)

/** Notes on `redis` (the connection requests use) under `keys`' prefix; `now` decides expiry. */
export function redisNotes(redis: () => Redis, keys: Keys, now: Clock): NoteStore {
  return {
    async get(key) {
      const [value, version, expiresAt] = await redis().hmget(keys.note(key), 'value', 'version', 'expires_at')
      if (value == null || version == null) return undefined
      if (expiresAt != null && Number(expiresAt) <= now()) return undefined
      return { value: JSON.parse(value) as JsonValue, version: Number(version) }
    },
    async put(key, value, expected, options) {
      const text = checkedNote(key, value)
      const ttl = options?.ttlMs === undefined ? '' : Math.ceil(options.ttlMs)
      const written = await PUT(redis(), [keys.note(key)], [expected, now(), value === null ? '' : text, ttl, NOTE_EXPIRY_SLACK_MS])
      return typeof written === 'number' ? written : undefined
    },
  }
}
