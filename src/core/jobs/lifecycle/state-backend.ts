/**
 * A job's life, made explicit so that it can be stored, shared and recovered: an accepted event becomes a job
 * (stored with its de-dup key in one write), a worker leases it, runs the agent, stores the answer, delivers it,
 * and the job ends `done`; or it is retried at a time, or `failed` with a reason. A job holds no secret: the
 * route is named, not copied, and is looked up again when the job runs.
 *
 * A state backend provides the three views of one resource: the de-dup store, the queue and the jobs view.
 * Memory, SQLite and Redis backends pass the same contract suites (`hookpilot/testing`).
 */
import type { JsonObject, Logger, RateBooking, RateDecision, RateLimiter } from '../../types.js'
import type { JobRecord, NewJob } from './job-record.js'
import type { JobsView } from './jobs-view.js'
import type { NoteStore } from './notes.js'
import type { RunUsage } from '../../usage.js'

/** How one try of a job ended, as the worker reports it; the queue stores it. */
export type JobOutcome =
  | { readonly kind: 'done'; readonly url?: string | undefined }
  /** Nothing to deliver (a silent output, or the target posted nothing on purpose): `reason` says which. */
  | { readonly kind: 'skipped'; readonly reason: string }
  /** The answer is stale: a newer job of the group (`by`), or the code host's head, replaced it. */
  | { readonly kind: 'superseded'; readonly reason: string; readonly by?: string | undefined }
  /** Try again at `at`; `reason` is kept as the job's last error. */
  | { readonly kind: 'retry'; readonly at: number; readonly reason: string }
  /**
   * Not run yet: a limit shared with others (the model API's requests or tokens per minute) has no room before
   * `at`. The job waits in the queue until then, this try and its run not counted, `reason` kept as its last error.
   */
  | { readonly kind: 'wait'; readonly at: number; readonly reason: string }
  | { readonly kind: 'failed'; readonly reason: string }
  /**
   * The gateway stopped during the try: the job goes back to the queue as it was, this try not counted.
   * `untried`: the worker never started (a lease handed back during a stop), so no agent run is counted either.
   */
  | { readonly kind: 'interrupted'; readonly untried?: boolean | undefined }

/** A job leased to a worker, with what the worker may record while it holds it. */
export interface LeasedJob {
  readonly job: JobRecord
  readonly payload: JsonObject
  /** Aborted when the worker must stop: the gateway's grace period ended (report `interrupted`). */
  readonly signal: AbortSignal
  /**
   * Aborted once a newer job of this job's concurrency group is accepted (its reason names the newer job): the
   * answer this try would post is stale. The worker stops the agent at once when the route cancels in
   * progress, and drops the answer before delivering in any case. Never aborted for a job without a group.
   */
  readonly superseded: AbortSignal
  /** Stores the answer and moves the job to stage `deliver` (before any delivery is tried), under the lease. */
  saveAnswer(text: string): Promise<void>
  /** Records that the first `parts` parts of the answer are posted, under the lease. */
  saveProgress(parts: number): Promise<void>
  /** Adds what one agent run used to the job's usage, under the lease (a run that failed is counted too). */
  saveUsage(usage: RunUsage): Promise<void>
  /**
   * Resolves while the store still confirms this try's lease (and extends it); rejects, and aborts the try,
   * once the lease is lost. Called right before a side effect (a post): a worker that lost its job to another
   * during a store outage, a partition or a freeze posts nothing.
   */
  confirmLease(): Promise<void>
  /** Records a process group the job started, so the next start can kill it if this process dies. */
  recordProcess(pid: number): void
}

/**
 * Runs one try of a job and says how it ended. It never throws: a failure is an outcome. `maxRuns`, when set,
 * is how many times the worker may start a job's agent stage (its own retries of failed runs included): the
 * lifecycle's crash-loop rule then allows that many starts instead of `MAX_RUNS`, and never fewer.
 */
export type JobWorker = ((job: LeasedJob) => Promise<JobOutcome>) & {
  readonly maxRuns?: number | undefined
  /**
   * Told of each job the backend ended without a try of this worker: one a newer job of its group outdated while
   * it ran, whose worker then died, ends `superseded` when it is recovered. The gateway counts it with the jobs
   * that ended (`hookpilot_jobs_finished_total`). Backends call it through the kit (`reportEnded`, `JobPool.ended`).
   */
  readonly ended?: ((job: JobRecord) => void) | undefined
  /**
   * Told of a leased job the kit ends without running this worker (a crash loop fails it; a job past its start
   * deadline is skipped), under its lease, before the ending is stored: the gateway tells the route's target, so
   * a check an earlier try of the job started is completed. It never rejects.
   */
  readonly endedUnrun?: ((job: LeasedJob, outcome: JobOutcome) => Promise<void>) | undefined
}

/**
 * The answer of {@link DedupStore.reserve}. `new` and `redeliver` hold the key for this request until
 * {@link JobQueue.add} stores the job or {@link Reservation.release} gives it back; `duplicate` holds nothing.
 */
export type Reservation =
  | {
      readonly status: 'new'
      readonly key: string
      release(): void
      /** The rate limit's answer, when the backend decided it in the same step ({@link LimitAsk}). */
      readonly limit?: LimitAnswer | undefined
    }
  /** A job with this key failed: adding re-queues it (its stored answer, if any, is delivered without a new run). */
  | { readonly status: 'redeliver'; readonly key: string; readonly jobId: string; release(): void }
  /** A job with this key is queued, running, or done within the window; or another request holds the key. */
  | { readonly status: 'duplicate'; readonly key: string; readonly jobId: string | undefined }

/**
 * The rate limit a request will ask `limiter` for once its key is reserved (`hit`, or `book` for a route that
 * defers). A backend whose own limiter it is may answer it with a `new` reservation, in the same round trip;
 * any other backend ignores it, and the gateway asks the limiter. A duplicate or a redelivery is never counted
 * by it (the request table: a duplicate does not use up the limit).
 */
export interface LimitAsk {
  /** The gateway's rate limiter: a backend answers only for its own (compared by identity). */
  readonly limiter: RateLimiter
  /** The limiter's key: the route's name. */
  readonly key: string
  /** Hits allowed in the limiter's window (`rate_limit`). */
  readonly limit: number
  /** `hit`: count one now or refuse; `book`: count one at the earliest moment the limit allows (`over_limit: defer`). */
  readonly mode: 'hit' | 'book'
}

/** What the limiter answered a {@link LimitAsk}: its decision for a `hit`, its booking for a `book`. */
export type LimitAnswer = { readonly hit: RateDecision } | { readonly booked: RateBooking }

/** De-duplication by delivery id: a small state machine over the jobs, not a claim with a TTL. */
export interface DedupStore {
  /**
   * Reserves `key` for one request. Atomic: of N concurrent reservations of a key, at most one is `new` or
   * `redeliver`. A key whose job finished `done` more than the backend's de-dup window ago is `new` again.
   * `limit` may be answered with a `new` reservation ({@link LimitAsk}); a backend may ignore it.
   */
  reserve(key: string, limit?: LimitAsk): Promise<Reservation>
}

/** What {@link JobQueue.add} did. */
export type AddResult =
  | {
      readonly status: 'accepted'
      readonly id: string
      /**
       * Jobs of the same concurrency group that this one superseded before they ran, as they ended (`superseded`,
       * naming this job): the gateway publishes and counts each, with its delivery id.
       */
      readonly superseded?: readonly JobRecord[] | undefined
    }
  | { readonly status: 'duplicate'; readonly id: string | undefined }
  /** `max_queue` jobs are waiting: nothing was stored. */
  | { readonly status: 'full' }

/** What was left when the queue stopped. */
export interface StopReport {
  /** Every running job finished within the grace period. */
  readonly finished: boolean
  /** Jobs not done: queued, or interrupted by the end of the grace period. */
  readonly left: number
}

/** Where accepted jobs wait for a worker. */
export interface JobQueue {
  /**
   * Stores a job, deciding again in the same write what the key's job is now (the lifecycle's `admit`): a key
   * whose job another process stored, or an operator queued again, since the reservation answers `duplicate`; a
   * failed job's key re-queues that job. Resolves only once the job is stored: the 202 waits for it. Throws
   * when the store cannot be written (the request is answered 503).
   */
  add(job: NewJob, reservation?: Reservation): Promise<AddResult>
  /** Starts handing due jobs to `worker`. Called once, after the backend started. */
  start(worker: JobWorker): void
  /**
   * Stops leasing, waits up to `graceMs` for running jobs, then aborts them (their signal) and waits a moment
   * for them to report; what is left stays stored (a durable backend runs it at the next start). A second call
   * cuts the first one's grace period short (the running jobs are aborted now) and resolves with its report.
   */
  stop(graceMs: number): Promise<StopReport>
}

/** Whether a plugin can do its work; `/ready` answers 503 with the reason otherwise. */
export type Readiness = { readonly ok: true } | { readonly ok: false; readonly reason: string }

/** What a plugin's `start` receives. */
export interface LifecycleContext {
  readonly log: Logger
  /**
   * True when an admin command (`hookpilot jobs`, the subscription commands) opens the plugin beside a running
   * gateway: a state backend then opens its store for the jobs view, de-dup and subscriptions only, and
   * recovers, expires and runs nothing (that is the serving process's work).
   */
  readonly admin?: boolean | undefined
}

/**
 * One resource that keeps the gateway's state: the de-dup store, the queue and the jobs view over it, opened
 * and closed with the gateway.
 */
export interface StateBackend {
  readonly name: string
  /** True when jobs survive the process (a restart runs what was left); false for memory. */
  readonly durable: boolean
  /** Where the state is kept, for messages (a file, a server and its prefix); never a password. */
  readonly where?: string | undefined
  readonly dedup: DedupStore
  readonly queue: JobQueue
  readonly jobs: JobsView
  /**
   * Small documents kept beside the jobs (the last reviewed head of a pull request, a pause, a budget's spend),
   * shared by every instance on the store. Every built-in backend keeps them; a feature that needs them refuses
   * to start, saying so, on a backend without.
   */
  readonly notes?: NoteStore | undefined
  /** Opens the resource and recovers what a previous process left; a problem throws with what to change. */
  start?(ctx: LifecycleContext): Promise<void>
  /** Closes the resource, after the queue stopped. */
  close?(): Promise<void>
  ready?(): Readiness | Promise<Readiness>
}
