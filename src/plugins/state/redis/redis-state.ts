/**
 * The Redis state backend (`state.driver: redis`): several gateway instances on one Redis share the queue
 * (BullMQ), the de-dup keys, the rate limits and the dynamic subscriptions, so any instance may take any
 * webhook and a job whose instance died is finished by another (docs/scaling.md).
 */
import { Queue } from 'bullmq'
import { GatewayError } from '../../../core/errors.js'
import type { StateBackend } from '../../../core/jobs/lifecycle/state-backend.js'
import type { JobRecord } from '../../../core/jobs/lifecycle/job-record.js'
import { checkedRetention } from '../../../core/jobs/lifecycle/transitions.js'
import { silentLogger } from '../../../core/log/logger.js'
import type { SubscriptionStore } from '../../../core/routes/subscriptions/subscription-store.js'
import type { Clock, Logger, RateLimiter } from '../../../core/types.js'
import { redisAdmission } from './admission.js'
import { checkSettings, openRedis, redactedUrl, type RedisClients } from './connection.js'
import { redisDedup } from './dedup.js'
import { keysOf, QUEUE_NAME } from './keys.js'
import { RATE_WINDOW_MS, redisLimiter } from './limiter.js'
import { redisOutage, type RedisSide } from './outage.js'
import { readJob, recordOf, stateOf, type BullJob, type JobData } from './records.js'
import { redisSubscriptionStore } from './subscriptions.js'
import { redisJobsView } from './view.js'
import { redisWorker } from './worker.js'
import { redisGroups } from './groups.js'
import { redisNotes } from './redis-notes.js'

const DAY = 24 * 3_600_000

/** Options of {@link redisState}. */
export interface RedisStateOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). */
  readonly url: string
  /** The prefix of every key (several gateways may share one Redis under different prefixes). Defaults to `hookpilot`. */
  readonly prefix?: string | undefined
  /** Agent runs at once on this instance. */
  readonly concurrency: number
  /** Most jobs waiting (across instances); past it a request is answered 503. */
  readonly maxQueue: number
  /** How long done jobs are kept (at least the de-dup window, an hour). Defaults to 24 hours. */
  readonly keepDoneMs?: number | undefined
  /** How long failed jobs are kept for `hookpilot jobs retry`. Defaults to 7 days. */
  readonly keepFailedMs?: number | undefined
  /**
   * How long a running job's lock lasts without renewal (renewed at half of it while the agent runs): how soon
   * another instance takes over the jobs of an instance that died. Defaults to 30 s.
   */
  readonly lockMs?: number | undefined
  /**
   * How long a webhook's request waits for each Redis command before it is answered 503 (with `Retry-After`):
   * a Redis that stops answering without closing its connections (frozen, or cut off by the network) would
   * otherwise hold every webhook past the sender's own timeout (GitHub's is 10 s). Defaults to 2,000 ms.
   */
  readonly commandTimeoutMs?: number | undefined
  /** A done job holds its delivery id this long after it finished. Defaults to one hour. */
  readonly dedupWindowMs?: number | undefined
  /**
   * The clock of the job records: their times, the de-dup window, purge. BullMQ's own timers (a retry's delay,
   * the stalled check, the retention of finished jobs) follow the machine's clock whatever this says.
   */
  readonly now?: Clock | undefined
}

/** The backend, and the limiter and subscription store that share its connections. */
export interface RedisState {
  readonly state: StateBackend
  readonly rateLimiter: RateLimiter
  readonly subscriptions: SubscriptionStore
}

/**
 * Creates the Redis backend; its connections open in `state.start()` (a Redis that cannot be reached stops
 * the start with a message naming `state.url`, without its password).
 *
 * @example
 * ```ts
 * const { state, rateLimiter, subscriptions } = redisState({ url: 'redis://10.0.0.5:6379', concurrency: 4, maxQueue: 1000 })
 * const gateway = await createGateway(config, [{ name: 'redis', state, rateLimiter, subscriptions }])
 * ```
 */
export function redisState(options: RedisStateOptions): RedisState {
  const now = options.now ?? Date.now
  const keys = keysOf(options.prefix ?? 'hookpilot')
  const retention = checkedRetention({ windowMs: options.dedupWindowMs, keepDoneMs: options.keepDoneMs, keepFailedMs: options.keepFailedMs })
  const { keepDoneMs, keepFailedMs } = retention
  const lockMs = options.lockMs ?? 30_000
  const commandTimeoutMs = options.commandTimeoutMs ?? 2_000
  const shown = redactedUrl(options.url)
  let log: Logger = silentLogger
  const outage = redisOutage({ shown, commandTimeoutMs, log: () => log })
  /** `call` on the request path: a failure is reported as an outage, and thrown in the gateway's words. */
  const onRequestPath = <A extends unknown[], R>(call: (...args: A) => R | Promise<R>) => async (...args: A): Promise<R> => {
    try {
      const result = await call(...args)
      outage.answered('webhooks')
      return result
    } catch (err) {
      throw outage.failed('webhooks', err)
    }
  }
  let opened: { clients: RedisClients; queue: Queue<JobData, void, string> } | undefined

  const open = () => {
    if (!opened) throw new GatewayError('ERR_STATE', 'The Redis state backend is not started (or already closed).')
    return opened
  }
  const commands = () => open().clients.commands
  const queue = () => open().queue
  const groups = redisGroups(commands, queue, keys)
  const view = redisJobsView({ queue, redis: commands, keys, now, windowMs: retention.windowMs, groups, keyOwner: (key) => commands().get(keys.keyOwner(key)) })
  const unfinished = async () => {
    const counts = await view.counts()
    return counts.queued + counts.running
  }
  // The worker's own connection for the worker's group calls: it waits out a short outage instead of timing out.
  const workerGroups = redisGroups(() => open().clients.worker, queue, keys)
  const worker = redisWorker({ connection: () => open().clients.worker, keys, groups: workerGroups, concurrency: options.concurrency, lockMs, unfinished, now, log: () => log, outage })
  /** Job `id` and its record, as Redis holds it now. */
  const record = async (id: string): Promise<{ job: BullJob; record: JobRecord } | undefined> => {
    const stored = await readJob(queue(), commands(), keys, id)
    if (!stored) return undefined
    const { job, mark } = stored
    return { job, record: recordOf(job, stateOf(await job.getState(), job.data), mark) }
  }
  // A request holds its key for the few milliseconds between reserve and add; 5 s is far past that even under
  // load, yet short enough that a hold left by a dead instance (or a Redis restart) delays a resend well within
  // GitHub's 10 s timeout.
  const limiter = redisLimiter(commands, keys)
  const rateLimiter: RateLimiter = { hit: onRequestPath(limiter.hit), book: onRequestPath(limiter.book) }
  // A new delivery's hit is counted with its key's hold when the gateway's limiter is this one: one wait less.
  const reserve = onRequestPath(redisDedup({
    redis: commands, keys, holder: async (id) => (await record(id))?.record, now, holdMs: 5_000, windowMs: retention.windowMs,
    rate: { limiter: rateLimiter, windowMs: RATE_WINDOW_MS },
  }))
  // A de-dup key outlives every job that can hold it; past that it is only a pointer to a purged job.
  const keyTtlSeconds = Math.ceil((Math.max(keepDoneMs, keepFailedMs) + DAY) / 1000)
  const store = onRequestPath(redisAdmission({ redis: commands, queue, keys, now, windowMs: retention.windowMs, maxQueue: options.maxQueue, keyTtlSeconds, record,
    groups, outdated: (id, by) => worker.supersede(id, by),
  }))

  const state: StateBackend = {
    name: 'redis',
    durable: true,
    where: `Redis ${shown} (prefix ${keys.prefix})`,
    dedup: { reserve },
    queue: {
      async add(job, reservation) {
        if (reservation?.status === 'duplicate') return { status: 'duplicate', id: reservation.jobId }
        try {
          return await store(job, reservation)
        } finally {
          reservation?.release()
        }
      },
      start: (run) => worker.start(run),
      stop: (graceMs) => worker.stop(graceMs),
    },
    jobs: view,
    notes: redisNotes(commands, keys, now),
    async start(ctx) {
      log = ctx.log
      const clients = await openRedis(options.url, { commandTimeoutMs })
      // A connection lost or refused is an outage even while no webhook or job meets it; its return ends it.
      const watch = (client: typeof clients.commands, side: RedisSide) => {
        client.on('error', (err: unknown) => void outage.failed(side, err))
        client.on('ready', () => outage.answered(side))
      }
      watch(clients.commands, 'webhooks')
      watch(clients.worker, 'jobs')
      const q = new Queue<JobData, void, string>(QUEUE_NAME, {
        connection: clients.commands,
        prefix: keys.prefix,
        defaultJobOptions: {
          removeOnComplete: { age: Math.ceil(keepDoneMs / 1000) },
          removeOnFail: { age: Math.ceil(keepFailedMs / 1000) },
        },
      })
      q.on('error', () => {}) // reported by ready() and by the requests that fail
      opened = { clients, queue: q }
      await checkSettings(clients.commands, log)
    },
    async close() {
      const current = opened
      opened = undefined
      if (!current) return
      await current.queue.close().catch(() => {})
      await current.clients.close()
    },
    ready() {
      const status = opened?.clients.commands.status
      if (status === 'ready') return { ok: true }
      return { ok: false, reason: `Redis at ${shown} is ${status === undefined ? 'not connected (the backend is closed)' : `unreachable (connection ${status})`}` }
    },
  }

  return {
    state,
    rateLimiter,
    subscriptions: redisSubscriptionStore(commands, () => open().clients.events, keys, shown),
  }
}
