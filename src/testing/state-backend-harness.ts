/**
 * The world the state-backend contract runs in: the options and harness a backend author gives, the suite's
 * time (a fake clock it moves, or the machine's, which it waits for), and the helpers its cases share.
 */
import { expect } from 'vitest'
import type { JobOutcome, JobWorker, LeasedJob, StateBackend } from '../core/jobs/lifecycle/state-backend.js'
import type { JobRecord, NewJob } from '../core/jobs/lifecycle/job-record.js'
import { silentLogger } from '../core/log/logger.js'
import type { Clock } from '../core/types.js'
import { fakeClock } from './clock.js'

const HOUR = 3_600_000

/** What the suite asks of a backend under test. */
export interface BackendOptions {
  readonly now: Clock
  readonly concurrency: number
  readonly maxQueue: number
  /** How often the pool looks at the store; the suite sets a few milliseconds. */
  readonly pollMs: number
  /** How long a done job holds its delivery id (the backend's `dedupWindowMs`). */
  readonly dedupWindowMs: number
  /** How long done jobs are kept, when the suite sets it (the backend's `keepDoneMs`, or its equivalent). */
  readonly keepDoneMs?: number | undefined
}

/** How the suite makes backends. */
export interface StateBackendHarness {
  /** A backend over a fresh, empty store. */
  make(options: BackendOptions): StateBackend
  /** Durable backends only: a new backend over the same store as `previous` (a restart). */
  reopen?(previous: StateBackend, options: BackendOptions): StateBackend
  /**
   * A second backend over the same store as `first`, running beside it as another process or instance would
   * (for a file, it sees `first`'s leases as a dead process's: the start of a process after a crash).
   */
  peer?(first: StateBackend, options: BackendOptions): StateBackend
  /**
   * Cases this backend cannot meet, by their title, each with the reason: they are listed as skipped with it
   * (as Hono's shared router cases are), never silently left out.
   */
  readonly cannot?: Readonly<Record<string, string>> | undefined
  /**
   * `false` for a backend that keeps no notes (`StateBackend.notes`): the suite then checks only that it has
   * none, and the features that need notes (incremental reviews, pauses, budgets) refuse to start on it.
   */
  readonly notes?: false | undefined
}

/** A new job for route `pr` with delivery id `id` (de-duplicated unless `dedup` is false). */
export function newJob(id: string, dedup = true): NewJob {
  const payload = { number: 7, id }
  return {
    route: 'pr', event: 'pull_request', deliveryId: id, dedupKey: dedup ? `pr\u0000${id}` : undefined, payload,
    payloadJson: JSON.stringify(payload), receivedAt: 0,
  }
}

/** The suite's durations and helpers for one harness; `closeAll` after each case. */
export function contractWorld(harness: StateBackendHarness) {
  const open: StateBackend[] = []
  const closeAll = async () => {
    for (const backend of open.splice(0)) {
      await backend.queue.stop(0)
      await backend.close?.()
    }
  }
  /** The de-dup window, a retry's delay and a short gap, on the suite's fake clock. */
  const WINDOW = HOUR
  const RETRY = 60_000
  const GAP = 10_000

  async function setup(overrides: Partial<BackendOptions> = {}) {
    const clock = fakeClock()
    const options: BackendOptions = { now: clock.now, concurrency: 2, maxQueue: 100, pollMs: 5, dedupWindowMs: WINDOW, ...overrides }
    const backend = harness.make(options)
    await backend.start?.({ log: silentLogger })
    open.push(backend)
    /** Reserves and adds one delivery, as the pipeline does. */
    const accept = async (id: string, on: StateBackend = backend) => on.queue.add(newJob(id), await on.dedup.reserve(`pr\u0000${id}`))
    /** Waits until no job is queued (due) or running. */
    const settled = async () => {
      await expect.poll(async () => {
        // Queued first, then running: a job that moves from one to the other between the two reads is still
        // seen (a backend whose worker leases concurrently with these reads).
        const due = (await backend.jobs.list({ state: 'queued' })).filter((j) => j.notBefore <= clock.now()).length
        return due + (await backend.jobs.counts()).running
      }, { timeout: 5_000, interval: 5 }).toBe(0)
    }
    return { clock, options, backend, accept, settled }
  }

  /** A worker that ends every job with `outcome` (or what `decide` says) and remembers what it leased. */
  function recorder(decide: (job: LeasedJob) => JobOutcome | Promise<JobOutcome> = () => ({ kind: 'done' })) {
    const leased: JobRecord[] = []
    const worker: JobWorker = async (job) => {
      leased.push(job.job)
      return decide(job)
    }
    return { leased, worker }
  }

  /** Starts a second backend over `first`'s store, beside it (harnesses with `peer` only). */
  async function peer(first: StateBackend, options: BackendOptions): Promise<StateBackend> {
    if (!harness.peer) throw new Error('this harness cannot open a second backend on one store')
    const next = harness.peer(first, options)
    await next.start?.({ log: silentLogger })
    open.push(next)
    return next
  }

  /** Stops and closes `backend`, then starts a new one over its store (durable harnesses only). */
  async function restart(backend: StateBackend, options: BackendOptions): Promise<StateBackend> {
    if (!harness.reopen) throw new Error('this harness cannot reopen a store')
    await backend.queue.stop(0)
    await backend.close?.()
    open.splice(open.indexOf(backend), 1)
    const next = harness.reopen(backend, options)
    await next.start?.({ log: silentLogger })
    open.push(next)
    return next
  }

  return { WINDOW, RETRY, GAP, setup, recorder, restart, peer, closeAll }
}

/** A try that ends only when it is stopped (its lease lost, or the backend closing), as interrupted. */
export function parked(job: LeasedJob): Promise<JobOutcome> {
  return new Promise((resolve) => job.signal.addEventListener('abort', () => resolve({ kind: 'interrupted' }), { once: true }))
}
