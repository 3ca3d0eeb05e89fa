/**
 * The worker side of a queue over any table that can lease jobs (the memory and SQLite backends, and yours):
 * at most `concurrency` jobs at once, woken when a job is added, when the earliest delayed job falls due, and
 * every `pollMs` for changes another process made. It moves jobs only through the lifecycle's transitions, and
 * only under a live lease: every write of a try names the lease's token, a lease is renewed while the try
 * runs, and a try whose lease is lost (its renewals failed until it ran out, or the store gave the job to
 * another worker) is aborted and may write nothing more, so a post is never made twice.
 */
import { backoffDelay, type Backoff } from '../../../util/backoff.js'
import { GatewayError, messageOf } from '../../errors.js'
import type { JobOutcome, JobWorker, StopReport } from '../lifecycle/state-backend.js'
import type { JobRecord } from '../lifecycle/job-record.js'
import { finished } from '../lifecycle/transitions.js'
import type { LeaseTable, LeasedRow } from './lease-table.js'
import { nearlyOut, openTry, renewEvery, reportEnded, runTry, storeTrouble, type Try } from './try.js'
import type { Clock, Logger } from '../../types.js'

/**
 * Between tries to store an outcome the store refused: soon at first (a write lock is usually short), then no
 * more often than every 5 s while it stays locked.
 */
const STORE_RETRY: Backoff = { baseDelayMs: 100, maxDelayMs: 5_000 }

/**
 * Between lease rounds while the store fails (a full disk, a store that is down): soon at first, then no more
 * often than every 30 s. Without it a due job that cannot be leased was looked for again at once, hundreds of
 * times a second, each with its log line.
 */
const STORE_OUTAGE: Backoff = { baseDelayMs: 500, maxDelayMs: 30_000 }

/** Options of {@link jobPool}. */
export interface JobPoolOptions {
  readonly concurrency: number
  readonly now: Clock
  readonly log: () => Logger
  /** How long a lease lasts without renewal; renewed every third of it. Defaults to 30,000 ms. */
  readonly leaseMs?: number | undefined
  /** Longest sleep between two looks at the table. Defaults to 1,000 ms. */
  readonly pollMs?: number | undefined
  /** How long aborted jobs get to report after the grace period. Defaults to 5,000 ms. */
  readonly settleMs?: number | undefined
}

/** The running half of a queue. */
export interface JobPool {
  start(worker: JobWorker): void
  /** Looks for due jobs now (after an add, or after a test moved its clock), even while a store outage pauses leasing. */
  wake(): void
  /**
   * Tells the try of job `id`, when this pool runs it, that the newer job `by` of its group was accepted (the
   * backend's add outdated it): its worker stops it at once when the route cancels in progress.
   */
  supersede(id: string, by: string): void
  /**
   * Reports jobs the backend ended without a try (its recovery ended an outdated one `superseded`): published and
   * told to the worker, or, before `start`, kept until then (a recovery at open runs before the queue starts).
   */
  ended(jobs: readonly JobRecord[]): void
  stop(graceMs: number): Promise<StopReport>
}

interface Active {
  readonly open: Try
  done: Promise<void>
}

/** Creates a pool over `table`. */
export function jobPool(table: LeaseTable, options: JobPoolOptions): JobPool {
  const { concurrency, now } = options
  const pollMs = options.pollMs ?? 1_000
  const leaseMs = options.leaseMs ?? 30_000
  // Tries until their outcome is stored (what stop() waits for); `running` of them still hold an agent slot.
  const active = new Map<string, Active>()
  let running = 0
  let worker: JobWorker | undefined
  let stopping = false
  let pumping: Promise<void> | undefined
  let again = false
  let timer: NodeJS.Timeout | undefined
  let renewing: NodeJS.Timeout | undefined
  // Counts the timer settings asked of the table, so that a late answer of an async `nextDue` sets no stale timer.
  let schedules = 0
  // Store failures (a lease, a renewal or a try's write refused) since the last try that wrote cleanly; no
  // lease round before `resumeAt` while there are any.
  let failures = 0
  let resumeAt = 0
  // Jobs the backend ended without a try before the worker started (bounded: a recovery ends at most what ran).
  let unreported: JobRecord[] = []

  /** Logs the first failure of an outage (only the first) and puts off the next lease round. */
  function storeFailed(what: string, err: unknown): void {
    if (failures === 0) {
      options.log().error(`the state store failed (${what}); jobs wait, and leasing is tried again with a growing pause (at most 30 s)`, { reason: messageOf(err) })
    }
    failures++
    resumeAt = now() + backoffDelay(STORE_OUTAGE, failures)
  }

  /** A try wrote everything it had to: the outage, if there was one, is over (said once). */
  function storeWorks(): void {
    if (failures === 0) return
    options.log().info('the state store works again: jobs are leased and stored as usual', { failures })
    failures = 0
    resumeAt = 0
  }

  /**
   * Renews every lease held; a lease the store no longer gives this process is lost, and so is one whose
   * renewals kept failing until it came close to running out (the store may give it away then).
   */
  async function renew(): Promise<void> {
    const tries = [...active.values()].map((a) => a.open).filter((o) => !o.lost)
    if (tries.length > 0) {
      const until = now() + leaseMs
      try {
        const kept = await table.renew(new Map(tries.map((o) => [o.id, o.token])), until)
        for (const open of tries) {
          if (kept.has(open.id)) open.until = Math.max(open.until, until)
          else open.lose()
        }
      } catch (err) {
        storeFailed('cannot renew job leases', err)
      }
      for (const open of tries) if (nearlyOut(open, leaseMs, now())) open.lose()
    }
    // Not awaited by anyone: renew() logs a failed renewal itself and schedules the next one.
    if (!stopping || active.size > 0) renewing = setTimeout(() => void renew(), renewEvery(leaseMs)).unref()
  }

  /**
   * Stores a try's outcome, trying again while the store refuses (a long write lock held by another process):
   * a job whose outcome is dropped would stay `running`. During a stop it gives up after one failure; the job
   * then stays leased by this process and the next start gives it back. A lost lease stores nothing.
   * The ending is stamped `endedAt`, when the try ended: the write may run later (after the next job's lease, in a
   * store that batches its writes), and the job's time is when it ended, not when that was stored.
   */
  async function store(open: Try, outcome: JobOutcome, endedAt: number): Promise<void> {
    for (let attempt = 1, logged = false; ; attempt++) {
      try {
        await open.write((job) => finished(job, outcome, endedAt), 'release')
        return
      } catch (err) {
        if (open.lost) return
        if (!logged) options.log().error('cannot store the outcome of a job; trying again', { job: open.id, delivery: open.leased.job.deliveryId, reason: messageOf(err) })
        logged = true
        if (stopping) throw err
        await new Promise((resolve) => setTimeout(resolve, backoffDelay(STORE_RETRY, attempt)).unref())
      }
    }
  }

  function launch(row: LeasedRow, run: JobWorker): void {
    const open = openTry(row, table, { now, leaseMs, log: options.log })
    running++
    const entry: Active = { open, done: Promise.resolve() }
    entry.done = runTry(open, run, now())
      .then((outcome) => {
        const endedAt = now()
        // The agent's slot is free once the try has ended, not once its outcome is stored: the next lease then
        // goes into the same commit as this outcome instead of waiting one more turn for its own.
        running--
        // A write the store refused (its disk is full) is no fault of the job (the kit's `storeTrouble`): leasing
        // pauses, and the job runs again when the store works, instead of ending `failed` for good.
        const trouble = storeTrouble(open, outcome)
        if (trouble) storeFailed('cannot store what a running job wrote', open.storeError)
        const stored = store(open, trouble ?? outcome, endedAt).then(() => {
          if (open.storeError === undefined && !open.lost) storeWorks()
        })
        wake()
        return stored
      })
      .catch(() => {
        // Stopping: the job stays `running` under this process's lease; the next start gives it back.
      })
      .finally(() => {
        active.delete(open.id)
        wake()
      })
    active.set(open.id, entry)
  }

  function pump(): Promise<void> {
    if (pumping) {
      again = true
      return pumping
    }
    pumping = leaseWhileFree().finally(() => {
      pumping = undefined
      schedule()
    })
    return pumping
  }

  async function leaseWhileFree(): Promise<void> {
    try {
      do {
        again = false
        while (worker && !stopping && running < concurrency && now() >= resumeAt) {
          const rows = await table.lease(concurrency - running, now(), now() + leaseMs)
          if (stopping) {
            // Leased while stop() began: hand them straight back, untried.
            await Promise.all(rows.map((row) => table.update(row.job.id, row.token, (j) => finished(j, { kind: 'interrupted', untried: true }, now()), 'release')))
            break
          }
          for (const row of rows) launch(row, worker)
          if (rows.length === 0) break
        }
      } while (again)
    } catch (err) {
      if (!stopping) storeFailed('cannot lease jobs', err)
    }
  }

  function schedule(): void {
    clearTimeout(timer)
    schedules++
    // Every slot taken: the next job to end wakes the pool, so there is nothing to look for until then. (A
    // burst of adds while the agents are busy would otherwise ask the table for its next due job at each one.)
    if (stopping || !worker || running >= concurrency) return
    const due = table.nextDue()
    if (due instanceof Promise) {
      // A network store's answer: the timer is set once it comes (at the poll's pace if it fails), unless the
      // pool stopped or looked again meanwhile.
      const asked = schedules
      due.then((at) => asked === schedules && arm(at), () => asked === schedules && arm(undefined))
      return
    }
    arm(due)
  }

  /** Sets the timer for the next look: when the earliest job falls due, at most `pollMs` away. */
  function arm(due: number | undefined): void {
    clearTimeout(timer)
    if (stopping || !worker) return
    const delay = Math.max(due === undefined ? pollMs : Math.min(Math.max(due - now(), 0), pollMs), resumeAt - now())
    // Unref'd: a waiting queue must not keep a process alive that has nothing else to do.
    timer = setTimeout(wake, delay).unref()
  }

  function wake(): void {
    // Fire and forget: pump() never rejects (leaseWhileFree logs its own failures), and a caller that must wait
    // for the lease round (stop) awaits `pumping` itself.
    void pump()
  }

  async function stopAll(graceMs: number, hurried: Promise<void>): Promise<StopReport> {
    stopping = true
    clearTimeout(timer)
    // A lease already on its way is waited for: what it took is handed back before the store may close.
    await pumping
    const settled = () => Promise.all([...active.values()].map((a) => a.done)).then(() => true)
    const done = await Promise.race([within(settled(), graceMs), hurried.then(() => false)])
    if (!done) {
      const reason = new GatewayError('ERR_CLOSED', 'The gateway stopped before the job finished.')
      for (const { open } of active.values()) open.abort(reason)
      await within(settled(), options.settleMs ?? 5_000)
    }
    clearTimeout(renewing)
    return { finished: done, left: await table.unfinished() }
  }

  return {
    start(run) {
      worker = run
      reportEnded(run, unreported.splice(0), now())
      wake()
      // The first renewal round; it schedules the next ones and logs its own failures.
      void renew()
    },
    wake() {
      // Something changed that the caller knows of (an add stored a job, the store came back): look now, even
      // during an outage's pause.
      resumeAt = 0
      wake()
    },
    supersede(id, by) {
      active.get(id)?.open.supersede(by)
    },
    ended(jobs) {
      if (worker) reportEnded(worker, jobs, now())
      else unreported = [...unreported, ...jobs].slice(-10_000)
    },
    stop: stopOnce(stopAll),
  }
}

/**
 * A queue's `stop`, run once: a second call cuts the first one's grace period short (`hurried` resolves, and
 * the running tries are aborted now) and resolves with the first one's report.
 */
export function stopOnce(stopAll: (graceMs: number, hurried: Promise<void>) => Promise<StopReport>): (graceMs: number) => Promise<StopReport> {
  let stopped: Promise<StopReport> | undefined
  let hurry = () => {}
  const hurried = new Promise<void>((resolve) => (hurry = resolve))
  return (graceMs) => {
    if (stopped) hurry()
    return (stopped ??= stopAll(graceMs, hurried))
  }
}

/** Resolves true when `promise` settles within `ms`, false otherwise. */
export async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([promise.then(() => true), timeout])
  } finally {
    clearTimeout(timer)
  }
}
