/**
 * The in-memory state backend: queue, de-dup and jobs view in Maps. Nothing survives the process; use it for
 * tests and for embedding where losing queued work on a restart is acceptable. `hookpilot serve` defaults to
 * SQLite. Every move of a job is the lifecycle's (core/jobs/lifecycle/transitions.ts): this file only keeps records.
 */
import { GatewayError } from '../../../core/errors.js'
import type { JobStore, JobTransaction } from '../../../core/jobs/worker/job-store.js'
import { jobPool } from '../../../core/jobs/worker/pool.js'
import type { LeaseTable, LeasedRow } from '../../../core/jobs/worker/lease-table.js'
import { reservationBook } from '../../../core/jobs/worker/reservations.js'
import type { JobCounts } from '../../../core/jobs/lifecycle/jobs-view.js'
import type { JobRecord } from '../../../core/jobs/lifecycle/job-record.js'
import type { StateBackend } from '../../../core/jobs/lifecycle/state-backend.js'
import { addJob, purgeJobs, retryJob } from '../../../core/jobs/worker/store-writes.js'
import { checkedRetention, DEDUP_WINDOW_MS, isFinal, leased, purgeable, retentionCutoff } from '../../../core/jobs/lifecycle/transitions.js'
import { leasable } from '../../../core/jobs/lifecycle/groups.js'
import { turnOf } from '../../../core/jobs/lifecycle/fairness.js'
import { dedupKeyOf } from '../../../core/jobs/lifecycle/dedup-key.js'
import { jobMatcher } from '../../../core/jobs/views/job-filter.js'
import { silentLogger } from '../../../core/log/logger.js'
import type { Clock, JsonObject, Logger } from '../../../core/types.js'
import { memoryNotes } from './memory-notes.js'
import { DONE_PAYLOADS, memoryRecords, stateOf, type Entry } from './memory-records.js'

/** Options of {@link memoryState}. */
export interface MemoryStateOptions {
  /** Agent runs at once. */
  readonly concurrency: number
  /** Most jobs waiting; past it a request is answered 503. */
  readonly maxQueue: number
  /** How long a done job holds its delivery id after it finished. Defaults to one hour. */
  readonly dedupWindowMs?: number | undefined
  /** How long finished jobs are kept (at least the de-dup window). Defaults to the window. */
  readonly keepFinishedMs?: number | undefined
  /** Most finished jobs kept; past it the oldest are forgotten. Defaults to 100,000. */
  readonly maxFinished?: number | undefined
  readonly now?: Clock | undefined
  /** Longest sleep of the worker pool between looks at the queue. Defaults to 1,000 ms. */
  readonly pollMs?: number | undefined
}

/**
 * Creates an in-memory backend.
 *
 * @example
 * ```ts
 * const state = memoryState({ concurrency: 4, maxQueue: 1000 })
 * const gateway = await createGateway(config, [definePlugin({ name: 'my-state', setup: () => ({ name: 'my-state', state }) })])
 * ```
 */
export function memoryState(options: MemoryStateOptions): StateBackend {
  const now = options.now ?? Date.now
  const windowMs = options.dedupWindowMs ?? DEDUP_WINDOW_MS
  const keep = options.keepFinishedMs ?? windowMs
  const retention = checkedRetention({ windowMs, keepDoneMs: keep, keepFailedMs: keep })
  const maxFinished = Math.max(1, options.maxFinished ?? 100_000)
  const records = memoryRecords()
  const { jobs, keys, finishedAt, waiting, turnsOfKey, groups, busy, put, remove, liveEntry } = records
  const book = reservationBook()
  let seq = 0
  let tokens = 0
  let log: Logger = silentLogger

  /** Forgets finished jobs past the retention (or past the cap), oldest first. */
  const sweep = (t: number) => {
    const cutoff = retentionCutoff(t, retention)
    for (const [id] of finishedAt) {
      const e = jobs.get(id)
      if (e && !purgeable(e.job, cutoff) && finishedAt.size <= maxFinished) break
      remove(id)
    }
  }

  /**
   * The first `max` queued jobs leasable at `t`, in lease order, no two of one concurrency group: a walk of the
   * queue in that order from its first job, which stops once it has them (only the jobs not due yet, or of a
   * busy group, that come before them are looked at too).
   */
  const firstLeasable = (max: number, t: number): Entry[] => {
    const picked: Entry[] = []
    const groupsPicked = new Set<string>()
    for (const queued of waiting.items) {
      if (picked.length >= max) break
      const e = liveEntry(queued.id)
      if (!e || !leasable(e.job, busy, t)) continue
      // Of two jobs of one group (an operator retried an old one beside a newer one) only the first may go.
      const group = e.job.group
      if (group !== undefined) {
        if (groupsPicked.has(group)) continue
        groupsPicked.add(group)
      }
      picked.push(e)
    }
    return picked
  }

  const table: LeaseTable = {
    async lease(max, t) {
      const rows: LeasedRow[] = []
      // The first `max` leasable jobs in the lifecycle's lease order (as the SQL backends' ORDER BY turn,
      // not_before, id: the keys of fair_by take turns, a job the gateway stopped during its run goes first), at
      // most one of a group, read from the queue kept in that order.
      for (const e of firstLeasable(max, t)) {
        put(e, leased(e.job, t)) // a live entry whose job stays unfinished is changed in place
        e.token = String(++tokens)
        rows.push({ job: e.job, payload: e.payload ?? {}, token: e.token })
      }
      return rows
    },
    async update(id, token, change) {
      const e = liveEntry(id)
      if (!e || e.job.state !== 'running' || e.token !== token) return undefined
      const next = change(e.job)
      put(e, next)
      sweep(now())
      return next
    },
    async renew(held) {
      return new Set([...held].filter(([id, token]) => jobs.get(id)?.token === token).map(([id]) => id))
    },
    recordProcess() {
      // Processes die with this process (run-process watches its parent): nothing to clean up at a next start.
    },
    nextDue() {
      let due: number | undefined
      for (const job of waiting.items) {
        if (job.group !== undefined && busy.has(job.group)) continue
        if (due === undefined || job.notBefore < due) due = job.notBefore
      }
      return due
    },
    unfinished: () => records.queued + records.running,
  }
  const pool = jobPool(table, { concurrency: options.concurrency, now, log: () => log, pollMs: options.pollMs })

  /**
   * The pool looks for the new job once the add has answered, not inside it: the memory table leases
   * synchronously, and the job's first event (`accepted`, published by the caller) comes before its lease.
   */
  const afterAdd = { supersede: (id: string, by: string) => pool.supersede(id, by), wake: () => void setImmediate(() => pool.wake()) }

  const holderOf = (key: string | undefined) => {
    const id = key === undefined ? undefined : keys.get(key)
    return id === undefined ? undefined : jobs.get(id)
  }

  /** The memory backend as the kit's store: every write runs at once, in one turn of the event loop. */
  const tx: JobTransaction<JsonObject> = {
    get: (id) => jobs.get(id)?.job,
    put(record) {
      const e = jobs.get(record.id)
      if (!e) return
      const key = e.job.dedupKey
      if (key !== undefined && record.dedupKey === undefined && keys.get(key) === record.id) keys.delete(key)
      put(e, record)
    },
    insert(record, payload) {
      const id = String(++seq)
      // Stored queued without its group first: `put` then files it into its group's indexes and counts like any
      // record (one stored already ended, a closing event's job, moves from queued to its state there).
      const entry: Entry = { job: { ...record, id, group: undefined, state: 'queued' }, payload, token: undefined }
      records.add(entry)
      put(entry, { ...record, id })
      return id
    },
    holder: (key) => holderOf(key)?.job,
    members: (group) => [...(groups.get(group) ?? [])].flatMap((id) => jobs.get(id)?.job ?? []),
    newest(group) {
      let newest: JobRecord | undefined
      for (const m of jobs.values()) {
        const other = m.job
        if (other.group === group && (!newest || other.receivedAt > newest.receivedAt)) newest = other
      }
      return newest
    },
    queued: () => records.queued,
    turns(fairKey) {
      // The queue is kept in lease order (turn first) and each key's queued turns in order: only the running jobs,
      // at most the agents' slots, are walked.
      let lastRunning: number | undefined
      for (const id of records.active) {
        const turn = turnOf(liveEntry(id)?.job ?? {})
        lastRunning = Math.max(lastRunning ?? turn, turn)
      }
      const first = waiting.first()
      const ofKey = fairKey === undefined ? undefined : turnsOfKey.get(fairKey)?.last()
      return { firstQueued: first && turnOf(first), lastRunning, lastOfKey: ofKey }
    },
    purge(cutoff) {
      let n = 0
      for (const [id] of [...finishedAt]) {
        const e = jobs.get(id)
        if (!e || !purgeable(e.job, cutoff)) continue
        remove(id)
        n++
      }
      return n
    },
  }
  const store: JobStore<JsonObject> = {
    prepare: (job) => job.payload,
    transaction: async (work) => work(tx),
  }

  return {
    name: 'memory',
    durable: false,
    notes: memoryNotes(now),
    dedup: {
      reserve(key) {
        sweep(now())
        return book.reserve(key, () => holderOf(key)?.job, retention.windowMs, now)
      },
    },
    queue: {
      add(job, reservation) {
        sweep(now())
        return addJob(store, job, reservation, { maxQueue: options.maxQueue, windowMs: retention.windowMs, now, book, pool: afterAdd })
      },
      start: (worker) => pool.start(worker),
      stop: (graceMs) => pool.stop(graceMs),
    },
    jobs: {
      async list(filter = {}) {
        const out: JobRecord[] = []
        const matches = jobMatcher(filter)
        const before = filter.before === undefined ? Infinity : Number(filter.before)
        for (const e of [...jobs.values()].reverse()) {
          if (Number(e.job.id) >= before || !matches(e.job)) continue
          out.push(e.job)
          if (filter.limit !== undefined && out.length >= filter.limit) break
        }
        return out
      },
      async get(id) {
        return jobs.get(id)?.job
      },
      async find(route, deliveryId) {
        return holderOf(dedupKeyOf(route, deliveryId))?.job
      },
      async retry(id, mode = 'resume') {
        const e = jobs.get(id)
        if (!e) return undefined
        if (e.payload === undefined) {
          throw new GatewayError('ERR_STATE', `job ${id} is done and its payload is no longer kept (the memory backend keeps the latest ${DONE_PAYLOADS}): it cannot run again; use state.driver: sqlite to keep them`)
        }
        return retryJob(store, id, mode, now, pool)
      },
      purge: (before) => purgeJobs(store, before, now(), retention.windowMs),
      async counts(): Promise<JobCounts> {
        const counts = { queued: records.queued, running: records.running, done: 0, failed: 0, skipped: 0, superseded: 0 }
        for (const e of jobs.values()) {
          const state = stateOf(e)
          if (isFinal(state)) counts[state]++
        }
        return counts
      },
    },
    async start(ctx) {
      log = ctx.log
    },
  }
}
