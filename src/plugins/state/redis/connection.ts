/**
 * The Redis connections of one gateway: `commands` for everything a request waits on (it fails at once while
 * Redis is down, and a command Redis does not answer within the command timeout fails then, so a webhook is
 * answered 503 well inside the sender's own timeout rather than held while Redis is frozen or cut off),
 * `worker` for BullMQ's worker (it waits and retries, as BullMQ requires of a worker's connection), and
 * `events` for the subscription-change channel. All reconnect by themselves.
 */
import { Redis, type RedisOptions } from 'ioredis'
import { GatewayError, messageOf } from '../../../core/errors.js'
import type { Logger } from '../../../core/types.js'
import { withDeadline } from '../../../util/deadline.js'

/** The three connections. */
export interface RedisClients {
  readonly commands: Redis
  readonly worker: Redis
  readonly events: Redis
  /** `state.url` without its password, for messages. */
  readonly shown: string
  close(): Promise<void>
}

/** `url` with any password replaced by `***`, for messages and logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password !== '') parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(a state.url that is not a URL)'
  }
}

/** How long a start waits for Redis before saying it cannot reach it. */
const CONNECT_TIMEOUT_MS = 5_000

/** What {@link openRedis} needs besides the URL. */
export interface RedisConnectOptions {
  /** How long a command on `commands` waits for Redis's answer before it fails. */
  readonly commandTimeoutMs: number
}

/**
 * Opens the connections to `url`; a Redis that cannot be reached within a few seconds is an error naming
 * `state.url` (without its password) and what went wrong.
 */
export async function openRedis(url: string, options: RedisConnectOptions): Promise<RedisClients> {
  const shown = redactedUrl(url)
  // Reconnecting forever, at most a second apart: a Redis restart is survived without a gateway restart.
  const common: RedisOptions = { lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS, retryStrategy: (times) => Math.min(times * 100, 1_000) }
  // A connection that stays open to a Redis that answers nothing (SIGSTOP, a partition, a full disk on its
  // host) gives no error: only a deadline on each command turns that into a 503 rather than a wait.
  // Not auto-pipelined: it saves Redis about a third of its CPU per request, but each command then waits for the
  // next setImmediate, and over HTTP on a busy machine a request's four sequential commands cost more than that
  // (docs/benchmarks.md, Redis).
  const commands = new Redis(url, { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: options.commandTimeoutMs })
  const worker = new Redis(url, { ...common, maxRetriesPerRequest: null })
  const events = new Redis(url, { ...common, maxRetriesPerRequest: null })
  const all = [commands, worker, events]
  // ioredis reports connection errors as events; they are the readiness answer's business, not a crash. The
  // last one says why a start failed (connect() itself only says the connection closed).
  let lastError: unknown
  for (const client of all) client.on('error', (err: unknown) => (lastError = err))
  const close = async () => {
    await Promise.all(all.map((c) => c.quit().catch(() => c.disconnect())))
  }
  try {
    const expired = () => new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)
    await Promise.all(all.map((c) => withDeadline(c.connect(), CONNECT_TIMEOUT_MS, expired)))
  } catch (err) {
    for (const client of all) client.disconnect()
    const reason = reasonOf(lastError ?? err).replace(/\.$/, '')
    throw new GatewayError('ERR_STATE', `Cannot reach Redis at state.url (${shown}): ${reason}. Start Redis, or fix state.url.`, { cause: err })
  }
  return { commands, worker, events, shown, close }
}

/**
 * Warns about Redis settings the guarantees depend on: an eviction policy other than `noeviction` lets Redis
 * drop queued jobs and de-dup keys when it is full (BullMQ requires `noeviction`), and without the append-only
 * file a Redis restart loses what it was holding. Managed Redis may forbid CONFIG: then it says it cannot check.
 */
export async function checkSettings(client: Redis, log: Logger): Promise<void> {
  const setting = async (name: string): Promise<string | undefined> => {
    const answer = await client.config('GET', name)
    return Array.isArray(answer) && typeof answer[1] === 'string' ? answer[1] : undefined
  }
  try {
    const policy = await setting('maxmemory-policy')
    if (policy !== undefined && policy !== 'noeviction') {
      log.warn(`Redis maxmemory-policy is ${policy}: a full Redis may evict queued jobs and de-dup keys. Set maxmemory-policy noeviction (docs/scaling.md).`, { maxmemory_policy: policy })
    }
    const appendonly = await setting('appendonly')
    if (appendonly === 'no') {
      log.warn('Redis appendonly is off: a Redis restart loses the jobs it held since its last snapshot. Set appendonly yes (docs/scaling.md).', { appendonly })
    }
  } catch (err) {
    log.warn('cannot read the Redis settings (CONFIG GET); check maxmemory-policy noeviction and appendonly yes yourself (docs/scaling.md)', { reason: reasonOf(err) })
  }
}

function reasonOf(err: unknown): string {
  const text = messageOf(err)
  // ioredis wraps refusals as "connect ECONNREFUSED 127.0.0.1:6390"; AggregateError carries the parts.
  if (text === '' && err instanceof AggregateError) return err.errors.map(reasonOf).join('; ')
  return text
}
