/**
 * A Lua script of the Redis backend, sent by its SHA1 (`EVALSHA`) rather than by its text (`EVAL`): a request
 * sends a few dozen bytes instead of the script's few hundred, and Redis looks the script up instead of hashing
 * its text on every call. A Redis that does not know it yet (its first call, after a restart or a
 * `SCRIPT FLUSH`) answers NOSCRIPT, and the call is made once more with the text, which loads it.
 */
import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'

/** Runs the script on `redis` with `keys` and `args`; resolves Redis' answer. */
export type LuaScript = (redis: Redis, keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>

/** The script of `lua`. */
export function luaScript(lua: string): LuaScript {
  const sha = createHash('sha1').update(lua).digest('hex')
  return async (redis, keys, args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args)
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err
      return redis.eval(lua, keys.length, ...keys, ...args)
    }
  }
}
