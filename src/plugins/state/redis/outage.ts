/**
 * A Redis outage in the gateway's words: what is wrong with Redis (unreachable, not answering, full, read-only),
 * what is affected (accepting webhooks, running jobs) and what the gateway does about it, said once when each
 * side first meets it and once when Redis answers that side again, instead of the client library's text at
 * every failed command. The errors the request path throws carry the same words (they reach the request log).
 */
import { GatewayError, messageOf } from '../../../core/errors.js'
import type { Logger } from '../../../core/types.js'

/** What an outage affects: taking webhooks (the request path), or running jobs (the worker). */
export type RedisSide = 'webhooks' | 'jobs'

/** What {@link redisOutage} needs. */
export interface RedisOutageOptions {
  /** `state.url` without its password. */
  readonly shown: string
  readonly commandTimeoutMs: number
  readonly log: () => Logger
}

/** The outage watch of one backend. */
export interface RedisOutage {
  /**
   * Reports a failed Redis call of `side`: an outage the first time (logged once), and the error to throw, in
   * the gateway's words with the original as its cause. An error that is no outage (a bug, a script error) is
   * returned as it is.
   */
  failed(side: RedisSide, err: unknown): unknown
  /** Reports an answered call of `side`: the end of its outage, if it had one (logged once). */
  answered(side: RedisSide): void
}

const CONSEQUENCE: Readonly<Record<RedisSide, string>> = {
  webhooks: 'webhooks are answered 503 with Retry-After until it answers again (none is acknowledged without being stored)',
  jobs: 'no job is taken or finished until it answers again; a try it cannot store goes back to the queue and is tried again later, none fails for it',
}

const RESUMED: Readonly<Record<RedisSide, string>> = {
  webhooks: 'accepting webhooks again',
  jobs: 'running jobs again',
}

/** Creates the watch; nothing is logged until a call fails. */
export function redisOutage(options: RedisOutageOptions): RedisOutage {
  const down = new Map<RedisSide, { since: number; refused: number }>()
  return {
    failed(side, err) {
      const what = problemOf(err, options.commandTimeoutMs)
      if (what === undefined) return err
      const outage = down.get(side)
      if (outage) outage.refused++
      else {
        down.set(side, { since: Date.now(), refused: 1 })
        options.log().error(`Redis at ${options.shown} ${what}: ${CONSEQUENCE[side]}`, { affected: side === 'webhooks' ? 'accepting webhooks' : 'running jobs' })
      }
      return new GatewayError('ERR_STATE', `Redis at ${options.shown} ${what}`, { cause: err })
    },
    answered(side) {
      const outage = down.get(side)
      if (!outage) return
      down.delete(side)
      const seconds = Math.round((Date.now() - outage.since) / 1000)
      options.log().info(`Redis at ${options.shown} answers again after ${seconds} s: ${RESUMED[side]}`, { outage_seconds: seconds, refused: outage.refused })
    },
  }
}

/**
 * What an error says of Redis, in the gateway's words, or undefined when it is no outage. ioredis and Redis
 * name the same few conditions many ways (a refused connection, a closed one, an offline queue that is off).
 */
export function problemOf(err: unknown, commandTimeoutMs: number): string | undefined {
  const text = messageOf(err)
  if (/Command timed out/i.test(text)) return `does not answer (no answer within ${commandTimeoutMs / 1000} s)`
  if (/^OOM /.test(text)) return "is full (its memory is over maxmemory): it refuses writes until it has room"
  if (/^LOADING /.test(text)) return 'is loading its data after a restart'
  if (/^READONLY /.test(text)) return 'is a read-only replica (state.url must name the primary)'
  if (/^MISCONF /.test(text)) return 'refuses writes: it cannot save its data to disk'
  if (/^(NOAUTH|WRONGPASS) /.test(text)) return 'refuses the password in state.url'
  const code = /\b(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)\b/.exec(text)?.[1]
  if (code !== undefined) return `is unreachable (${CONNECTION_WORDS[code] ?? code})`
  if (/Connection is closed|Stream isn't writeable|enableOfflineQueue|MaxRetriesPerRequest|Reached the max retries/i.test(text)) {
    return 'is unreachable (the connection is down; reconnecting)'
  }
  return undefined
}

const CONNECTION_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection broken',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
}
