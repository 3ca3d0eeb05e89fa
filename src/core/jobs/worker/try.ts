/**
 * One try of a leased job, as every backend's worker runs it: the job as the worker sees it, whose writes (the
 * answer, the progress, a confirmation of the lease before a post) go through the lifecycle under the lease's
 * token, and which is aborted once its lease is lost. The pool (pool.ts) and the Redis worker both open tries
 * here, so the crash-loop rule and the fencing are written once.
 */
import { GatewayError, messageOf } from '../../errors.js'
import type { LeaseAfter, LeaseTable, LeasedRow } from './lease-table.js'
import type { JobOutcome, JobWorker, LeasedJob } from '../lifecycle/state-backend.js'
import type { JobRecord } from '../lifecycle/job-record.js'
import { publishEnded, publishJob } from '../views/job-events.js'
import { recordProcess } from './orphans.js'
import { answered, crashLoop, expired, progressed, used } from '../lifecycle/transitions.js'
import { outdated } from '../lifecycle/groups.js'
import type { Clock, Logger } from '../../types.js'

/** The error a try's signal carries when its lease is lost. */
export function leaseLost(id: string): GatewayError {
  return new GatewayError('ERR_LEASE_LOST', `The lease on job ${id} was lost (its renewals failed, or another worker took the job): this try stops and writes nothing more.`)
}

/** The reason a try's `superseded` signal carries: an error naming the newer job of its group (`by`). */
export function supersededBy(id: string, by: string): GatewayError & { readonly by: string } {
  const error = new GatewayError('ERR_SUPERSEDED', `Job ${id} was superseded by job ${by}, a newer event of its concurrency group: its answer would be stale.`)
  return Object.assign(error, { by })
}

/** What a try needs of its table: writes under its lease. */
export type TryTable = Pick<LeaseTable, 'update' | 'recordProcess'>

/** One try of a leased job: the job as its worker sees it, and the lease it runs under. */
export interface Try {
  readonly id: string
  readonly token: string
  /** The job as the worker receives it; its writes go through the lease and fail once it is lost. */
  readonly leased: LeasedJob
  /** Until when the store holds the lease, as far as this process knows (moved by every write and renewal). */
  until: number
  /** Aborts the try because its lease is gone: its signal says why, and its writes are refused from now on. */
  lose(): void
  /** True once the lease is known to be lost. */
  readonly lost: boolean
  /** The error of a write the store refused (not for a lost lease), if one was: the try's outcome is not the job's fault. */
  readonly storeError: unknown
  /** Writes `change(job)` under the lease, extending it (or ending it with `'release'`); throws once the lease is lost. */
  write(change: (job: JobRecord) => JobRecord, after?: LeaseAfter): Promise<JobRecord>
  /** Aborts the try for another reason (the gateway's grace period ended). */
  abort(reason: unknown): void
  /** Tells the try that the newer job `by` of its group was accepted (its `superseded` signal fires once). */
  supersede(by: string): void
}

/** What {@link openTry} needs besides the row and the table. */
export interface TryOptions {
  readonly now: Clock
  readonly leaseMs: number
  readonly log: () => Logger
}

/**
 * Opens a try of `row`: the worker's view of the job, with the answer, the progress and the lease
 * confirmation written through the lifecycle under the row's lease token.
 */
export function openTry({ job, payload, token }: LeasedRow, table: TryTable, options: TryOptions): Try {
  const { now, leaseMs } = options
  const abort = new AbortController()
  const stale = new AbortController()
  publishJob('leased', job, now())
  const isLost = () => GatewayError.is(abort.signal.reason) && abort.signal.reason.code === 'ERR_LEASE_LOST'
  let storeError: unknown
  // The newer job of its group, once the try learned of it: each write's record names it (the lifecycle's
  // `outdated`), so an outcome computed on a record read before the mark still ends naming it.
  let newer: string | undefined
  const self: Try = {
    id: job.id,
    token,
    until: now() + leaseMs,
    get lost() {
      return isLost()
    },
    get storeError() {
      return storeError
    },
    lose() {
      if (abort.signal.aborted) return
      options.log().warn('lease lost: the try stops and posts nothing more; another worker may run the job', { job: job.id })
      abort.abort(leaseLost(job.id))
    },
    async write(change, after = { until: now() + leaseMs }) {
      if (isLost()) throw leaseLost(job.id)
      let stored: JobRecord | undefined
      try {
        stored = await table.update(job.id, token, (current) => change(newer === undefined || current.supersededBy !== undefined ? current : outdated(current, newer, now())), after)
      } catch (err) {
        storeError ??= err
        throw err
      }
      if (!stored) {
        self.lose()
        throw leaseLost(job.id)
      }
      if (after !== 'release') self.until = after.until
      if (after === 'release' || stored.state !== 'running') publishEnded(stored, now())
      // Every write reads the record back: one another process outdated (a newer event of the group came to
      // it) is noticed here at the latest, and the confirmation before a post is such a write.
      if (stored.supersededBy !== undefined) self.supersede(stored.supersededBy)
      return stored
    },
    abort: (reason) => abort.abort(reason),
    supersede: (by) => {
      newer ??= by
      if (!stale.signal.aborted) stale.abort(supersededBy(job.id, by))
    },
    leased: {
      job,
      payload,
      signal: abort.signal,
      superseded: stale.signal,
      saveAnswer: async (text) => {
        const stored = await self.write((j) => answered(j, text, now()))
        publishJob('answered', stored, now())
      },
      saveProgress: async (parts) => void (await self.write((j) => progressed(j, parts, now()))),
      saveUsage: async (usage) => void (await self.write((j) => used(j, usage, now()))),
      confirmLease: async () => void (await self.write((j) => j)),
      recordProcess: (pid) => table.recordProcess(job.id, token, recordProcess(pid)),
    },
  }
  return self
}

/**
 * What a try ends as when the store refused one of its writes (its answer, its progress, the lease's confirmation
 * before a post): the failure is the store's, not the job's. A try that delivered (`done`) keeps its outcome; any
 * other goes back to the queue, this try not counted (`interrupted`), and runs again once the store takes writes
 * (the caller waits out the outage first: the pool pauses its leasing, the Redis worker delays the job). Undefined
 * when the store refused nothing: the outcome stands. Every worker of the kit (the pool, the Redis worker) ends
 * its tries through it.
 */
export function storeTrouble(open: Pick<Try, 'storeError'>, outcome: JobOutcome): JobOutcome | undefined {
  return open.storeError === undefined || outcome.kind === 'done' ? undefined : { kind: 'interrupted' }
}

/**
 * Reports jobs a backend ended without a try (a job outdated while it ran, recovered after its worker died, ends
 * `superseded`): each is published on the job channel and told to `worker` (which counts it), when there is one.
 */
export function reportEnded(worker: JobWorker | undefined, jobs: readonly JobRecord[], at: number): void {
  for (const job of jobs) {
    publishEnded(job, at)
    worker?.ended?.(job)
  }
}

/**
 * Runs one try to its outcome: a job that crashed its gateway too often fails without running (the
 * lifecycle's `crashLoop`), one not started within its route's `start_within_seconds` ends skipped without
 * running (the lifecycle's `expired`, on the store's clock `now`), and a worker that throws is a failed try.
 */
export async function runTry(open: Try, worker: JobWorker, now: number): Promise<JobOutcome> {
  const reason = crashLoop(open.leased.job, worker.maxRuns)
  if (reason !== undefined) return endedUnrun(open, worker, { kind: 'failed', reason })
  const late = expired(open.leased.job, now)
  if (late !== undefined) return endedUnrun(open, worker, { kind: 'skipped', reason: late })
  try {
    return await worker(open.leased)
  } catch (err) {
    return { kind: 'failed', reason: `the worker threw: ${messageOf(err)}` }
  }
}

/** `outcome` of a try the kit ended without running the worker, once the worker was told of it. */
async function endedUnrun(open: Try, worker: JobWorker, outcome: JobOutcome): Promise<JobOutcome> {
  await worker.endedUnrun?.(open.leased, outcome).catch(() => undefined)
  return outcome
}

/** A lease is renewed every third of its length, and given up a sixth of it before it runs out. */
export const renewEvery = (leaseMs: number) => Math.max(1, Math.floor(leaseMs / 3))
/** Whether a try's lease is too close to its end to go on: what stops here stops before another worker may take it. */
export const nearlyOut = (open: Try, leaseMs: number, now: number) => open.until - leaseMs / 6 <= now
