/**
 * The worker side of a queue over any table that can lease jobs: at most `concurrency` jobs at once, woken when
 * a job is added, when the earliest delayed job falls due, and every `pollMs` for changes made by another
 * process (`hookpilot jobs retry` against the same file). The memory and SQLite backends share it.
 */
import { GatewayError } from '../errors.js'
import type { JobOutcome, JobRecord, JobWorker, LeasedJob, StopReport } from './state-backend.js'
import type { Clock, JsonObject, Logger } from '../types.js'

/** A job as a table hands it out. */
export interface LeasedRow {
  readonly job: JobRecord
  readonly payload: JsonObject
}

/** What the pool needs of a table. Writes resolve once they are stored. */
export interface LeaseTable {
  /** Marks up to `max` due queued jobs running (counting one attempt each) and returns them. */
  lease(max: number, now: number): Promise<LeasedRow[]>
  saveAnswer(id: string, text: string, now: number): Promise<void>
  saveProgress(id: string, parts: number, now: number): Promise<void>
  recordProcess(id: string, pid: number): void
  /** Stores how a try ended (see {@link JobOutcome}). */
  finish(id: string, outcome: JobOutcome, now: number): Promise<void>
  /** When the earliest queued job falls due; undefined when none is queued. */
  nextDue(): number | undefined
  /** Jobs queued or running. */
  unfinished(): number
}

/** Options of {@link jobPool}. */
export interface JobPoolOptions {
  readonly concurrency: number
  readonly now: Clock
  readonly log: () => Logger
  /** Longest sleep between two looks at the table. Defaults to 1,000 ms. */
  readonly pollMs?: number | undefined
  /** How long aborted jobs get to report after the grace period. Defaults to 5,000 ms. */
  readonly settleMs?: number | undefined
}

/** The running half of a queue. */
export interface JobPool {
  start(worker: JobWorker): void
  /** Looks for due jobs now (after an add, or after a test moved its clock). */
  wake(): void
  stop(graceMs: number): Promise<StopReport>
}

/** Creates a pool over `table`. */
export function jobPool(table: LeaseTable, options: JobPoolOptions): JobPool {
  const { concurrency, now } = options
  const pollMs = options.pollMs ?? 1_000
  // Tries until their outcome is stored (what stop() waits for), and how many of them still hold an agent slot.
  const active = new Set<{ readonly abort: AbortController; readonly done: Promise<void> }>()
  let running = 0
  let worker: JobWorker | undefined
  let stopping = false
  let pumping: Promise<void> | undefined
  let again = false
  let timer: NodeJS.Timeout | undefined

  /**
   * Stores a try's outcome, trying again while the store refuses (a long write lock held by another process):
   * a job whose outcome is dropped would stay `running`. During a stop it gives up after one failure; the job
   * then stays leased by this process and the next start gives it back.
   */
  async function store(id: string, deliveryId: string, outcome: JobOutcome): Promise<void> {
    for (let delay = 100, logged = false; ; delay = Math.min(delay * 2, 5_000)) {
      try {
        await table.finish(id, outcome, now())
        return
      } catch (err) {
        if (!logged) options.log().error('cannot store the outcome of a job; trying again', { job: id, delivery: deliveryId, reason: message(err) })
        logged = true
        if (stopping) throw err
        await new Promise((resolve) => setTimeout(resolve, delay).unref())
      }
    }
  }

  function launch({ job, payload }: LeasedRow, run: JobWorker): void {
    const abort = new AbortController()
    const leased: LeasedJob = {
      job,
      payload,
      signal: abort.signal,
      saveAnswer: (text) => table.saveAnswer(job.id, text, now()),
      saveProgress: (parts) => table.saveProgress(job.id, parts, now()),
      recordProcess: (pid) => table.recordProcess(job.id, pid),
    }
    running++
    // Through a promise even for a worker that throws synchronously: every try must end in a stored outcome.
    const done = Promise.resolve()
      .then(() => run(leased))
      .catch((err: unknown): JobOutcome => ({ kind: 'failed', reason: `the worker threw: ${message(err)}` }))
      .then((outcome) => {
        // The agent's slot is free once the try has ended, not once its outcome is stored: the next lease then
        // goes into the same commit as this outcome instead of waiting one more turn for its own.
        running--
        const stored = store(job.id, job.deliveryId, outcome)
        wake()
        return stored
      })
      .catch(() => {
        // Stopping: the job stays `running` under this process's lease; the next start gives it back.
      })
      .finally(() => {
        active.delete(entry)
        wake()
      })
    const entry = { abort, done }
    active.add(entry)
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
        while (worker && !stopping && running < concurrency) {
          const rows = await table.lease(concurrency - running, now())
          if (stopping) {
            // Leased while stop() began: hand them straight back, untried.
            await Promise.all(rows.map((row) => table.finish(row.job.id, { kind: 'interrupted' }, now())))
            break
          }
          for (const row of rows) launch(row, worker)
          if (rows.length === 0) break
        }
      } while (again)
    } catch (err) {
      if (!stopping) options.log().error('cannot lease jobs', { reason: message(err) })
    }
  }

  function schedule(): void {
    clearTimeout(timer)
    // Every slot taken: the next job to end wakes the pool, so there is nothing to look for until then. (A
    // burst of adds while the agents are busy would otherwise ask the table for its next due job at each one.)
    if (stopping || !worker || running >= concurrency) return
    const due = table.nextDue()
    const delay = due === undefined ? pollMs : Math.min(Math.max(due - now(), 0), pollMs)
    // Unref'd: a waiting queue must not keep a process alive that has nothing else to do.
    timer = setTimeout(wake, delay).unref()
  }

  function wake(): void {
    void pump()
  }

  return {
    start(run) {
      worker = run
      wake()
    },
    wake,
    async stop(graceMs) {
      stopping = true
      clearTimeout(timer)
      // A lease already on its way is waited for: what it took is handed back before the store may close.
      await pumping
      const settled = () => Promise.all([...active.values()].map((a) => a.done)).then(() => true)
      const finished = await within(settled(), graceMs)
      if (!finished) {
        const reason = new GatewayError('ERR_CLOSED', 'The gateway stopped before the job finished.')
        for (const { abort } of active.values()) abort.abort(reason)
        await within(settled(), options.settleMs ?? 5_000)
      }
      return { finished, left: table.unfinished() }
    },
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

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
