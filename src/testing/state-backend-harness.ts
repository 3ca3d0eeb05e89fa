/**
 * The world the state-backend contract runs in: the options and harness a backend author gives, the suite's
 * time (a fake clock it moves, or the machine's, which it waits for), and the helpers its cases share.
 */
import { expect } from 'vitest'
import type { JobOutcome, JobWorker, LeasedJob, StateBackend } from '../core/jobs/lifecycle/state-backend.js'
import type { JobRecord, NewJob } from '../core/jobs/lifecycle/job-record.js'
import { silentLogger } from '../core/log/logger.js'
import type { Clock } from '../core/types.js'
import { fakeClock, type FakeClock } from './clock.js'

const HOUR = 3_600_000
/** A delay on the machine's clock: long enough to see a job held, short enough to wait for. */
const MACHINE_DELAY = 400

/** The machine's clock for the cases that wait for it; it cannot be moved, so `advance` refuses. */
function machineClock(): FakeClock {
  return {
    now: Date.now,
    advance() {
      throw new Error('the machine\'s clock cannot be moved: wait for the time instead (`reach`)')
    },
  }
}

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
   * (for a file, it sees `first`'s leases as a dead process's: the start of a process after a crash). Without
   * it the cases of two instances on one store do not apply and are not registered: a backend that lives in
   * one process (the memory backend) cannot be shared.
   */
  peer?(first: StateBackend, options: BackendOptions): StateBackend
  /**
   * `false` when a `peer` cannot find `first` dead: the cases of a takeover (a job whose worker died is
   * recovered, in its order, superseded if outdated; the fencing of the try whose lease was taken) then do not
   * apply and are not registered. The Redis backend declares it: a `first` alive in this process keeps
   * renewing its BullMQ lock, so its jobs are never taken over; test/e2e/redis-instances.system.test.ts kills
   * a real instance and checks the takeover there.
   */
  readonly takeover?: false | undefined
  /**
   * Whose clock a delayed job (a retry's time, a `wait`, a deferred `runAt`) falls due on. `'suite'` (the
   * default): the backend's pool compares it with `options.now`, and the suite moves its fake clock past it.
   * `'machine'`: the backend keeps that timer itself on the machine's clock (BullMQ promotes a delayed job),
   * so the suite runs those cases with `now` the machine's clock and a delay of a few hundred milliseconds,
   * and waits for the job to fall due. Every other case keeps the fake clock.
   */
  readonly clock?: 'suite' | 'machine' | undefined
  /**
   * Cases this backend cannot meet, by their title, each with the reason: they are listed as skipped with it
   * (as Hono's shared router cases are), never silently left out. No built-in backend needs it; it is the
   * honest way for a backend of your own to say a case fails on it, and why.
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
  /** Whether delayed jobs fall due on the machine's clock (see {@link StateBackendHarness.clock}). */
  const machine = harness.clock === 'machine'

  /**
   * A backend and its helpers. With `{ delays: true }` (the cases where a delayed job must fall due) on a
   * harness whose clock is the machine's, `now` is the machine's clock, `DELAY` a few hundred milliseconds
   * and `reach` only waits; otherwise `now` is a fake clock, `DELAY` is {@link RETRY} and `reach` moves it.
   */
  async function setup(overrides: Partial<BackendOptions> = {}, { delays = false }: { delays?: boolean } = {}) {
    const real = delays && machine
    const clock = real ? machineClock() : fakeClock()
    /** How far ahead a delayed job is due. */
    const DELAY = real ? MACHINE_DELAY : RETRY
    /** Brings time to `at`: moves the fake clock there, or on the machine's, leaves it to pass by itself. */
    const reach = (at: number) => {
      if (!real) clock.advance(at - clock.now())
    }
    /** How long a poll for a delayed job may wait: the machine's delay too, when time passes by itself. */
    const dueWithin = { timeout: DELAY + 5_000 }
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
    return { clock, options, backend, accept, settled, DELAY, reach, dueWithin }
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

  /** {@link recorder}, also remembering when (on `clock`) it leased each job. */
  function timedRecorder(clock: FakeClock, decide?: Parameters<typeof recorder>[0]) {
    const leasedAt: number[] = []
    const { leased, worker } = recorder(decide)
    const timed: JobWorker = (job) => {
      leasedAt.push(clock.now())
      return worker(job)
    }
    return { leased, leasedAt, worker: timed }
  }

  /**
   * Gives a job due at `at` a moment to be leased too early, then checks that `leased` still holds `count`.
   * On the machine's clock the moment may run past `at` on a loaded machine: the count is then not checked
   * here, and the lease's time (from {@link timedRecorder}) says whether it came before its time.
   */
  async function heldAWhile(clock: FakeClock, at: number, leased: readonly JobRecord[], count: number) {
    await new Promise((resolve) => setTimeout(resolve, 30))
    // One synchronous read of both: no lease can land between them.
    if (clock.now() < at) expect(leased).toHaveLength(count)
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

  return { WINDOW, RETRY, GAP, setup, recorder, timedRecorder, heldAWhile, restart, peer, closeAll }
}

/** A try that ends only when it is stopped (its lease lost, or the backend closing), as interrupted. */
export function parked(job: LeasedJob): Promise<JobOutcome> {
  return new Promise((resolve) => job.signal.addEventListener('abort', () => resolve({ kind: 'interrupted' }), { once: true }))
}
