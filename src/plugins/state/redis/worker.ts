/**
 * The worker side of the Redis backend: a BullMQ worker leases jobs (its lock is renewed while an agent runs, and
 * a job whose instance died is found stalled by another instance's worker and run again), and each try's
 * outcome is stored the way the job lifecycle says: done, failed with its reason, or delayed to its retry time.
 */
import { DelayedError, UnrecoverableError, Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import { GatewayError } from '../../../core/errors.js'
import { within } from '../../../core/jobs/pool.js'
import { finishedRecord } from '../../../core/jobs/transitions.js'
import type { JobOutcome, JobWorker, LeasedJob, StopReport } from '../../../core/jobs/state-backend.js'
import { QUEUE_NAME, type Keys } from './keys.js'
import { dataOf, decodePayload, recordOf, type BullJob, type JobData } from './records.js'

/** What {@link redisWorker} needs. */
export interface RedisWorkerOptions {
  readonly connection: () => Redis
  readonly keys: Keys
  readonly concurrency: number
  /** How long a lease lasts without renewal; BullMQ renews it at half this while the job runs. */
  readonly lockMs: number
  /** Jobs queued or running, for the stop report. */
  readonly unfinished: () => Promise<number>
  readonly now: () => number
  /** How long aborted jobs get to report after the grace period. */
  readonly settleMs?: number | undefined
}

/** The running half of the queue. */
export interface RedisWorker {
  start(worker: JobWorker): void
  stop(graceMs: number): Promise<StopReport>
}

/** How many times a job may be found stalled (its instance died) and run again before it fails. */
const MAX_STALLED = 3

/** Creates the worker; nothing is leased before `start`. */
export function redisWorker(options: RedisWorkerOptions): RedisWorker {
  const { now } = options
  const active = new Set<AbortController>()
  let bull: Worker<JobData, void, string> | undefined

  async function process(job: BullJob, token: string | undefined, run: JobWorker): Promise<void> {
    // The lease counts one try before the agent starts, so a try its instance did not survive is counted too.
    let data: JobData = { ...job.data, attempts: job.data.attempts + 1, updatedAt: now() }
    await job.updateData(data)
    const save = async (change: Partial<JobData>) => {
      data = { ...data, ...change, updatedAt: now() }
      await job.updateData(data)
    }
    const abort = new AbortController()
    const leased: LeasedJob = {
      job: recordOf(job, 'running'),
      payload: decodePayload(data),
      signal: abort.signal,
      saveAnswer: (answer) => save({ stage: 'deliver', answer, progress: 0, attempts: 1 }),
      saveProgress: (progress) => save({ progress }),
      // Nothing to record: the watchdog already ends the agent's process group with this process, and another
      // machine could not kill it anyway.
      recordProcess: () => {},
    }
    active.add(abort)
    let outcome: JobOutcome
    try {
      outcome = await run(leased)
    } catch (err) {
      outcome = { kind: 'failed', reason: `the worker threw: ${err instanceof Error ? err.message : String(err)}` }
    } finally {
      active.delete(abort)
    }
    if (outcome.kind === 'done') return
    const record = finishedRecord(recordOf(job, 'running'), outcome, now())
    await job.updateData(dataOf(record, data.payload))
    if (outcome.kind === 'failed') throw new UnrecoverableError(outcome.reason)
    // A retry, or a try the gateway's stop interrupted: back to the queue at its time, this lease ended.
    await job.moveToDelayed(record.notBefore, token)
    throw new DelayedError()
  }

  return {
    start(run) {
      bull = new Worker<JobData, void, string>(QUEUE_NAME, (job, token) => process(job, token, run), {
        connection: options.connection(),
        prefix: options.keys.prefix,
        concurrency: options.concurrency,
        lockDuration: options.lockMs,
        stalledInterval: options.lockMs,
        maxStalledCount: MAX_STALLED,
      })
      bull.on('error', () => {}) // connection errors: the readiness answer reports Redis down
    },
    async stop(graceMs) {
      const worker = bull
      bull = undefined
      if (worker) {
        // close() stops leasing at once and resolves when the running jobs have ended.
        const closing = worker.close().catch(() => {})
        const finished = await within(closing, graceMs)
        if (!finished) {
          const reason = new GatewayError('ERR_CLOSED', 'The gateway stopped before the job finished.')
          for (const abort of active) abort.abort(reason)
          if (!(await within(closing, options.settleMs ?? 5_000))) await worker.close(true)
        }
        return { finished, left: await options.unfinished().catch(() => 0) }
      }
      return { finished: true, left: await options.unfinished().catch(() => 0) }
    },
  }
}
