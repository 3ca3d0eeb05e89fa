/**
 * The worker side of the Redis backend: BullMQ's worker leases jobs (its lock, renewed while an agent runs, is
 * the lease, and its token the lease's token), and each try runs through the worker kit (core/jobs/worker/pool.ts)
 * like on every backend: the lifecycle's records, written only while the lock is still this try's, and a try
 * aborted once its lock is lost. A job whose instance died is found stalled by another instance's worker and
 * run again (the lifecycle's `recovered`); the crash-loop rule is the lifecycle's, not BullMQ's. A write Redis
 * refuses (full to `maxmemory`, or gone) never fails a job: the job goes back to the queue and is tried again
 * after a backoff, by itself, once Redis takes writes again.
 */
import { DelayedError, UnrecoverableError, Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import { GatewayError, messageOf } from '../../../core/errors.js'
import { nearlyOut, openTry, runTry, storeTrouble, type Try, type TryTable } from '../../../core/jobs/worker/try.js'
import { stopOnce, within } from '../../../core/jobs/worker/pool.js'
import type { LeaseAfter } from '../../../core/jobs/worker/lease-table.js'
import type { JobOutcome, JobWorker, StopReport } from '../../../core/jobs/lifecycle/state-backend.js'
import type { JobRecord } from '../../../core/jobs/lifecycle/job-record.js'
import { finished, isFinal, leased } from '../../../core/jobs/lifecycle/transitions.js'
import { superseded } from '../../../core/jobs/lifecycle/groups.js'
import type { RedisGroups } from './groups.js'
import type { Logger } from '../../../core/types.js'
import { backoffDelay, type Backoff } from '../../../util/backoff.js'
import { QUEUE_NAME, type Keys } from './keys.js'
import type { RedisOutage } from './outage.js'
import { LEASED_BY, leaseHolder, reportStale, takeoverReport } from './takeover.js'
import { dataOf, decodePayload, MARK_FIELD, recordOf, type BullJob, type JobData } from './records.js'
import { luaScript } from './script.js'
import { leaveTurns } from './turns.js'

/**
 * A try's write: the job's data (KEYS[2], field `data`) becomes ARGV[2] only while its lock (KEYS[1]) is still
 * the try's token (ARGV[1]), and the lock is extended to ARGV[3] ms (0: left as it is); field ARGV[4] names the
 * lease's holder (ARGV[5]), for a takeover to say whose jobs it took. The record's mark (ARGV[6], '' for none) is
 * written to its own field (records.ts, MARK_FIELD), where a mark a newer job of the group left (groups.ts) is
 * kept. A record that ends the job (ARGV[7] = '1') takes job ARGV[8] out of the fair turns' sets (turns.ts: KEYS[3]
 * the unfinished jobs, KEYS[4] its fairness key's, '' for none). Answers 1, {1, the newer job} when the job is
 * marked outdated, or 0 when the lock is another's or gone (the job was taken over, or Redis lost it).
 */
const FENCED_WRITE = luaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], 'data', ARGV[2], ARGV[4], ARGV[5])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[2], '${MARK_FIELD}', ARGV[6]) end
if ARGV[7] == '1' then
  ${leaveTurns('KEYS[3]', 'KEYS[4]', 'ARGV[8]')}
end
if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
local mark = redis.call('HGET', KEYS[2], '${MARK_FIELD}')
if mark then return {1, mark} end
return 1`)

/** How long a job waits while another job of its group runs, before it asks again. */
const GROUP_BUSY_MS = 1_000

/** What {@link redisWorker} needs. */
export interface RedisWorkerOptions {
  /**
   * BullMQ's worker connection. A try's writes go through it too: like BullMQ's own moves, they wait out a short
   * Redis outage (its offline queue) and then find whether the lock is still theirs, instead of failing the
   * job on a connection error.
   */
  readonly connection: () => Redis
  readonly keys: Keys
  readonly groups: RedisGroups
  readonly concurrency: number
  /** How long a lease lasts without renewal; BullMQ renews it at half this while the job runs. */
  readonly lockMs: number
  /** Jobs queued or running, for the stop report. */
  readonly unfinished: () => Promise<number>
  readonly now: () => number
  readonly log: () => Logger
  /** Where a write Redis refuses is reported, in the gateway's words. */
  readonly outage: RedisOutage
  /** How long aborted jobs get to report after the grace period. */
  readonly settleMs?: number | undefined
}

/** The running half of the queue. */
export interface RedisWorker {
  start(worker: JobWorker): void
  /** Tells the try of job `id`, when it runs here, that the newer job `by` of its group was accepted. */
  supersede(id: string, by: string): void
  stop(graceMs: number): Promise<StopReport>
}

/**
 * BullMQ may find a job stalled this many times before it fails it. Far past the lifecycle's own crash-loop
 * rule (MAX_RUNS, counted at each lease), which decides first and says why; BullMQ's cap only stays a backstop.
 */
const MAX_STALLED = 1_000

/**
 * A job whose try Redis would not store waits this long before its next try: a second at first, doubling while
 * Redis keeps refusing, never more than 30 s, so a Redis given room again runs its jobs within half a minute.
 */
const STORE_RETRY: Backoff = { baseDelayMs: 1_000, maxDelayMs: 30_000 }


/** Creates the worker; nothing is leased before `start`. */
export function redisWorker(options: RedisWorkerOptions): RedisWorker {
  const { now, lockMs, keys } = options
  const tries = new Map<string, Try>()
  /** Tries in a row that Redis refused to store, per job: its backoff. */
  const refusals = new Map<string, number>()
  let bull: Worker<JobData, void, string> | undefined
  let watching: NodeJS.Timeout | undefined
  const takeover = takeoverReport({
    holder: (id) => options.connection().hget(keys.bull(id), LEASED_BY),
    lockMs,
    log: options.log,
  })

  /** The try's table: its record kept here (this try holds the lease) and written fenced by the lock. */
  function tableOf(job: BullJob, start: JobRecord): TryTable {
    let current = start
    return {
      async update(id, token, change, after: LeaseAfter) {
        const next = change(current)
        const extend = after === 'release' ? 0 : lockMs
        let ok: unknown
        try {
          const data = JSON.stringify(dataOf(next, job.data.payload))
          // Only the write that ends the job names its key's set (a hash of the key: not paid at every write).
          const ends = isFinal(next.state)
          ok = await FENCED_WRITE(options.connection(), [keys.bull(`${id}:lock`), keys.bull(id), keys.turns, keys.keyTurns(ends ? next.fairKey : undefined)],
            [token, data, extend, LEASED_BY, leaseHolder(token), next.supersededBy ?? '', ends ? '1' : '0', id])
        } catch (err) {
          const said = options.outage.failed('jobs', err)
          throw new GatewayError('ERR_STATE', `job ${id}'s progress was not stored: ${messageOf(said)}; the job is tried again later`, { cause: err })
        }
        options.outage.answered('jobs')
        const marked = Array.isArray(ok) && ok[0] === 1 ? String(ok[1]) : undefined
        if (ok !== 1 && marked === undefined) return undefined
        current = marked === undefined ? next : { ...next, supersededBy: marked }
        return current
      },
      // Nothing to record: the watchdog already ends the agent's process group with this process, and another
      // machine could not kill it anyway.
      recordProcess: () => {},
    }
  }

  /**
   * One try of `job` within its concurrency group: a job a newer one replaced ends superseded unrun (queued, or
   * recovered after it was outdated), and one whose group runs another job waits; the group is freed once the
   * try's outcome is stored.
   */
  async function process(job: BullJob, token: string | undefined, run: JobWorker): Promise<void> {
    if (token === undefined) throw new GatewayError('ERR_STATE', 'BullMQ handed out a job without a lock token')
    // The mark a newer job of its group left (only a job of a group has one, so only that costs the round trip):
    // a Redis that cannot be asked is a store outage, and the job waits.
    const mark = job.data.group === undefined ? undefined
      : await options.connection().hget(keys.bull(String(job.id)), MARK_FIELD).then((m) => m ?? undefined, () => null)
    if (mark === null) return await later(job, token)
    const queued = recordOf(job, 'queued', mark)
    const { group, supersededBy: by } = queued
    // Taken before its time: a failed job that a redelivery over the rate limit queued again for its booked
    // moment (BullMQ's retry moves it to the waiting list). It waits until then, on BullMQ's clock.
    const early = job.data.notBefore - now()
    if (by === undefined && early > 0) {
      await job.moveToDelayed(Date.now() + early, token)
      throw new DelayedError()
    }
    if (group === undefined) return processAlone(job, queued, token, run)
    if (by !== undefined) {
      const table = tableOf(job, queued)
      const ended = await table.update(String(job.id), token, (record) => superseded(record, by, now()), 'release').catch(() => undefined)
      if (!ended) return await later(job, token) // Redis refused: ended at the next try
      await options.groups.release(group, String(job.id), false).catch(() => {})
      return
    }
    // A group Redis cannot be asked about is a store outage: the job waits, as for a refused write.
    const claimed = await options.groups.claim(group, String(job.id)).catch(() => undefined)
    if (claimed === undefined) return await later(job, token)
    if (!claimed) {
      await job.moveToDelayed(now() + GROUP_BUSY_MS, token)
      throw new DelayedError()
    }
    let requeued = false
    try {
      await processAlone(job, queued, token, run)
    } catch (err) {
      requeued = err instanceof DelayedError // a retry at a later time, or a try the gateway's stop interrupted
      throw err
    } finally {
      const newer = await options.groups.release(group, String(job.id), requeued).catch(() => undefined)
      // Back in the queue while a newer job of its group waits: stale, it ends superseded when next taken.
      if (newer !== undefined) await options.groups.mark(String(job.id), newer).catch(() => {})
    }
  }

  async function processAlone(job: BullJob, queued: JobRecord, token: string, run: JobWorker): Promise<void> {
    const table = tableOf(job, queued)
    const lease = leased(queued, now())
    const open = openTry({ job: lease, payload: decodePayload(job.data), token }, table, { now, leaseMs: lockMs, log: options.log })
    const id = open.id
    tries.set(id, open)
    let outcome: JobOutcome
    try {
      // The lease counts one try before the agent starts, so a try its instance did not survive is counted too.
      // Refused, it counted nothing and ran nothing: the job waits in the queue for Redis to take writes again.
      try {
        await open.write(() => lease)
      } catch (err) {
        if (open.lost) throw err
        return await later(job, token)
      }
      outcome = await runTry(open, run, now())
    } finally {
      tries.delete(id)
    }
    // A try Redis refused a write of (its answer, its progress, the lease's confirmation before a post) did not
    // fail by itself: back to the queue, not counted, after the backoff (the kit's rule, `storeTrouble`).
    const trouble = storeTrouble(open, outcome)
    if (trouble) outcome = trouble
    let record: JobRecord
    const ends = outcome.kind !== 'retry' && outcome.kind !== 'wait' && outcome.kind !== 'interrupted'
    try {
      // Stored under the lock; BullMQ's own moves below check the same token.
      record = await open.write((current) => finished(current, outcome, now()), ends ? 'release' : { until: now() + lockMs })
    } catch {
      if (open.lost) {
        // Given up here (its renewals failed): if the lock is somehow still this try's, the job goes back to the
        // queue rather than failing; if another took it, BullMQ refuses the move and the job is theirs.
        await job.moveToDelayed(now(), token).catch(() => {})
        throw new DelayedError()
      }
      // Delivered (or ended without posting), but Redis refused the record: BullMQ's own move to completed
      // frees the lock before it writes, so a full Redis still takes it, and the job must not run (and post) again.
      if (ends && outcome.kind !== 'failed') return
      return await later(job, token)
    }
    refusals.delete(id)
    if (outcome.kind === 'failed') throw new UnrecoverableError(outcome.reason)
    if (isFinal(record.state)) return // done, skipped or superseded: BullMQ's completed list
    // A retry, or a try the gateway's stop (or a refused write) interrupted: back to the queue at its time.
    await job.moveToDelayed(trouble ? Date.now() + retryDelay(id) : record.notBefore, token)
    throw new DelayedError()
  }

  /** The wait before job `id`'s next try after Redis refused to store one more of its tries. */
  function retryDelay(id: string): number {
    const refused = (refusals.get(id) ?? 0) + 1
    // Jobs another instance finished are never deleted here: a bound, far past any outage's worth of jobs.
    if (refusals.size > 10_000) refusals.clear()
    refusals.set(id, refused)
    return backoffDelay(STORE_RETRY, refused)
  }

  /**
   * Puts back a job whose try Redis would not store, to be tried again after its backoff. BullMQ's move frees the
   * lock before it writes, so a full Redis takes it; if even that is refused (Redis gone), the job stays active
   * under a lock nobody renews, and a stalled-job check sends it back to the queue once Redis answers again.
   */
  async function later(job: BullJob, token: string): Promise<never> {
    await job.moveToDelayed(Date.now() + retryDelay(String(job.id)), token).catch(() => {})
    throw new DelayedError()
  }

  /** A try whose lock BullMQ could not renew until it was nearly out stops before another instance takes it. */
  function watch(): void {
    for (const open of tries.values()) if (nearlyOut(open, lockMs, now())) open.lose()
    watching = setTimeout(watch, Math.max(50, Math.floor(lockMs / 6))).unref()
  }

  async function stopAll(graceMs: number, hurried: Promise<void>): Promise<StopReport> {
    const worker = bull
    bull = undefined
    clearTimeout(watching)
    if (!worker) return { finished: true, left: await options.unfinished().catch(() => 0) }
    // close() stops leasing at once and resolves when the running jobs have ended.
    const closing = worker.close().catch(() => {})
    const finishedInTime = await Promise.race([within(closing, graceMs), hurried.then(() => false)])
    if (!finishedInTime) {
      const reason = new GatewayError('ERR_CLOSED', 'The gateway stopped before the job finished.')
      for (const open of tries.values()) open.abort(reason)
      if (!(await within(closing, options.settleMs ?? 5_000))) await worker.close(true)
    }
    return { finished: finishedInTime, left: await options.unfinished().catch(() => 0) }
  }

  return {
    start(run) {
      bull = new Worker<JobData, void, string>(QUEUE_NAME, (job, token) => process(job, token, run), {
        connection: options.connection(),
        prefix: keys.prefix,
        concurrency: options.concurrency,
        lockDuration: lockMs,
        stalledInterval: lockMs,
        maxStalledCount: MAX_STALLED,
      })
      // Connection errors are the outage report's (and the readiness answer's); the rest BullMQ recovers from.
      bull.on('error', (err) => void options.outage.failed('jobs', err))
      bull.on('stalled', (id: string) => {
        takeover(id)
        if (bull) void reportStale(bull, id, run, now, (job) => options.connection().hget(keys.bull(job), MARK_FIELD))
      })
      bull.on('locksRenewed', ({ jobIds }: { jobIds: string[] }) => {
        const until = now() + lockMs
        for (const id of jobIds) {
          const open = tries.get(id)
          if (open) open.until = Math.max(open.until, until)
        }
      })
      bull.on('lockRenewalFailed', (jobIds: string[]) => {
        for (const id of jobIds) tries.get(id)?.lose()
      })
      watch()
    },
    supersede(id, by) {
      tries.get(id)?.supersede(by)
    },
    stop: stopOnce(stopAll),
  }
}
