/**
 * The in-memory state backend: queue, de-dup and jobs view in Maps. Nothing survives the process; use it for
 * tests and for embedding where losing queued work on a restart is acceptable. `hookpilot serve` defaults to
 * SQLite.
 */
import { GatewayError } from '../../../core/errors.js'
import { jobPool, type LeaseTable, type LeasedRow } from '../../../core/jobs/pool.js'
import type { JobCounts, JobOutcome, JobRecord, JobState, NewJob, StateBackend } from '../../../core/jobs/state-backend.js'
import { IDEMPOTENCY_TTL_MS as DEDUP_WINDOW_MS } from '../../../core/pipeline/pipeline.js'
import { reservationBook } from '../../../core/jobs/reservations.js'
import { silentLogger } from '../../../core/log/logger.js'
import type { Clock, JsonObject, Logger } from '../../../core/types.js'
import { finishedRecord, queuedAgain, retriedRecord } from '../../../core/jobs/transitions.js'

/** Options of {@link memoryState}. */
export interface MemoryStateOptions {
  /** Agent runs at once. */
  readonly concurrency: number
  /** Most jobs waiting; past it a request is answered 503. */
  readonly maxQueue: number
  /** How long finished jobs are kept (at least the de-dup window, one hour). Defaults to one hour. */
  readonly keepFinishedMs?: number | undefined
  /** Most finished jobs kept; past it the oldest are forgotten. Defaults to 100,000. */
  readonly maxFinished?: number | undefined
  readonly now?: Clock | undefined
  /** Longest sleep of the worker pool between looks at the queue. Defaults to 1,000 ms. */
  readonly pollMs?: number | undefined
}

/** How many done jobs keep their payloads, so an operator's retry can run one again. */
const DONE_PAYLOADS = 1_000

interface Entry {
  job: JobRecord
  payload: JsonObject | undefined
}

/**
 * Creates an in-memory backend.
 *
 * @example
 * ```ts
 * const gateway = await createGateway(config, [defineStateBackend(memoryState({ concurrency: 4, maxQueue: 1000 }))])
 * ```
 */
export function memoryState(options: MemoryStateOptions): StateBackend {
  const now = options.now ?? Date.now
  const keepMs = options.keepFinishedMs ?? 3_600_000
  const maxFinished = Math.max(1, options.maxFinished ?? 100_000)
  const jobs = new Map<string, Entry>()
  const keys = new Map<string, string>() // de-dup key -> job id
  const finished = new Map<string, number>() // job id -> finished at, oldest first
  const waiting = new Set<string>() // queued job ids, so a lease never walks the finished ones
  const withPayload = new Set<string>() // done jobs that still hold their payload, oldest first
  const book = reservationBook()
  let queued = 0
  let running = 0
  let seq = 0
  let log: Logger = silentLogger

  const entry = (id: string): Entry => {
    const found = jobs.get(id)
    if (!found) throw new GatewayError('ERR_STATE', `no job ${id}`)
    return found
  }
  const count = (state: JobState, delta: number) => {
    if (state === 'queued') queued += delta
    else if (state === 'running') running += delta
  }
  const update = (e: Entry, job: JobRecord) => {
    count(e.job.state, -1)
    count(job.state, 1)
    e.job = job
    if (job.state === 'queued') waiting.add(job.id)
    else waiting.delete(job.id)
    if (job.finishedAt === undefined) finished.delete(job.id)
    else {
      finished.delete(job.id) // re-inserted at the young end
      finished.set(job.id, job.finishedAt)
    }
  }

  /** Forgets finished jobs past their time (or past the cap), with their payloads. */
  const sweep = (t: number) => {
    for (const [id, at] of finished) {
      if (at > t - keepMs && finished.size <= maxFinished) break
      finished.delete(id)
      const gone = jobs.get(id)
      jobs.delete(id)
      if (gone?.job.dedupKey !== undefined && keys.get(gone.job.dedupKey) === id) keys.delete(gone.job.dedupKey)
    }
  }

  const table: LeaseTable = {
    async lease(max, t) {
      const rows: LeasedRow[] = []
      for (const id of waiting) {
        if (rows.length >= max) break
        const e = entry(id)
        if (e.job.notBefore > t) continue
        update(e, { ...e.job, state: 'running', attempts: e.job.attempts + 1, updatedAt: t })
        rows.push({ job: e.job, payload: e.payload ?? {} })
      }
      return rows
    },
    async saveAnswer(id, text, t) {
      const e = entry(id)
      update(e, { ...e.job, stage: 'deliver', answer: text, progress: 0, attempts: 1, updatedAt: t })
    },
    async saveProgress(id, parts, t) {
      const e = entry(id)
      update(e, { ...e.job, progress: parts, updatedAt: t })
    },
    recordProcess() {
      // Processes die with this process (run-process watches its parent): nothing to clean up at a next start.
    },
    async finish(id, outcome: JobOutcome, t) {
      const e = entry(id)
      update(e, finishedRecord(e.job, outcome, t))
      // A done job keeps its record for the de-dup window, but only the latest keep their payloads (tens of KB
      // each, needed only to run one again): memory stays bounded by what runs, not by what ran.
      if (e.job.state === 'done') {
        withPayload.add(id)
        for (const oldest of withPayload) {
          if (withPayload.size <= DONE_PAYLOADS) break
          withPayload.delete(oldest)
          const old = jobs.get(oldest)
          if (old?.job.state === 'done') old.payload = undefined
        }
      }
      sweep(t)
    },
    nextDue() {
      let due: number | undefined
      for (const id of waiting) {
        const at = entry(id).job.notBefore
        if (due === undefined || at < due) due = at
      }
      return due
    },
    unfinished: () => queued + running,
  }
  const pool = jobPool(table, { concurrency: options.concurrency, now, log: () => log, pollMs: options.pollMs })

  function insert(job: NewJob, t: number): string {
    const id = String(++seq)
    if (job.dedupKey !== undefined) {
      const previous = keys.get(job.dedupKey)
      const old = previous === undefined ? undefined : jobs.get(previous)
      if (old) old.job = { ...old.job, dedupKey: undefined } // the key moves to the new job
      keys.set(job.dedupKey, id)
    }
    const record: JobRecord = {
      id, route: job.route, event: job.event, deliveryId: job.deliveryId, dedupKey: job.dedupKey, state: 'queued', stage: 'run',
      answer: undefined, progress: 0, attempts: 0, notBefore: t, lastError: undefined, receivedAt: job.receivedAt, updatedAt: t,
      finishedAt: undefined,
    }
    jobs.set(id, { job: record, payload: job.payload })
    waiting.add(id)
    queued++
    return id
  }

  return {
    name: 'memory',
    durable: false,
    dedup: {
      reserve(key, windowMs) {
        sweep(now())
        return book.reserve(key, () => {
          const id = keys.get(key)
          return id === undefined ? undefined : jobs.get(id)?.job
        }, windowMs, now)
      },
    },
    queue: {
      async add(job, reservation) {
        if (reservation?.status === 'duplicate') return { status: 'duplicate', id: reservation.jobId }
        try {
          if (queued >= options.maxQueue) return { status: 'full' }
          const t = now()
          sweep(t)
          if (reservation?.status === 'redeliver') {
            const e = jobs.get(reservation.jobId)
            if (e?.job.state === 'failed') {
              update(e, queuedAgain(e.job, t))
              pool.wake()
              return { status: 'accepted', id: e.job.id }
            }
            // Re-queued since (an operator's retry): the key is that job's, and this is a copy of it.
            if (e !== undefined && e.job.dedupKey === reservation.key) return { status: 'duplicate', id: e.job.id }
          }
          const id = insert(job, t)
          pool.wake()
          return { status: 'accepted', id }
        } finally {
          if (reservation !== undefined) book.settle(reservation)
        }
      },
      start: (worker) => pool.start(worker),
      stop: (graceMs) => pool.stop(graceMs),
    },
    jobs: {
      async list(filter = {}) {
        const out: JobRecord[] = []
        for (const e of [...jobs.values()].reverse()) {
          if (filter.state !== undefined && e.job.state !== filter.state) continue
          if (filter.route !== undefined && e.job.route !== filter.route) continue
          out.push(e.job)
          if (filter.limit !== undefined && out.length >= filter.limit) break
        }
        return out
      },
      async get(id) {
        return jobs.get(id)?.job
      },
      async retry(id) {
        const e = jobs.get(id)
        if (!e) return undefined
        if (e.payload === undefined) {
          throw new GatewayError('ERR_STATE', `job ${id} is done and its payload is no longer kept (the memory backend keeps the latest ${DONE_PAYLOADS}): it cannot run again; use state.driver: sqlite to keep them`)
        }
        update(e, retriedRecord(e.job, now()))
        const retried = e.job
        pool.wake()
        return retried
      },
      async purge(before) {
        let n = 0
        // A done job holds its delivery id for the de-dup window: purging it sooner would let a redelivery run again.
        const doneBefore = Math.min(before, now() - DEDUP_WINDOW_MS)
        for (const [id, at] of [...finished]) {
          if (at >= (jobs.get(id)?.job.state === 'done' ? doneBefore : before)) continue
          finished.delete(id)
          const gone = jobs.get(id)
          jobs.delete(id)
          if (gone?.job.dedupKey !== undefined && keys.get(gone.job.dedupKey) === id) keys.delete(gone.job.dedupKey)
          n++
        }
        return n
      },
      async counts(): Promise<JobCounts> {
        let done = 0
        let failed = 0
        for (const e of jobs.values()) {
          if (e.job.state === 'done') done++
          else if (e.job.state === 'failed') failed++
        }
        return { queued, running, done, failed }
      },
    },
    async start(ctx) {
      log = ctx.log
    },
  }
}
