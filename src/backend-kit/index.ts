/**
 * `hookpilot/backend-kit`: what a state backend of your own (PostgreSQL, DynamoDB, ...) builds on, so it stores
 * rows and inherits the job lifecycle instead of rewriting it. The lifecycle's transitions say what every edge
 * of a job's life does; the worker kit runs tries under leases over four primitives of your table; the
 * reservation book holds a key while its request is on its way to your store. The shipped contract
 * (`stateBackendContract` in `hookpilot/testing`) proves the result.
 *
 * @example
 * ```ts
 * import { admit, accepted, jobPool, reservationBook, type LeaseTable } from 'hookpilot/backend-kit'
 * const pool = jobPool(myTable, { concurrency: 4, now: Date.now, log: () => log })
 * ```
 * @packageDocumentation
 */
export {
  DEDUP_WINDOW_MS, MAX_RUNS, EDGES, decide, admit, refusal, accepted, keyMoved, queuedAgain, leased, crashLoop, answered, progressed, finished,
  recovered, retried, leaseOrder, rerun, resent, purgeCutoff, retentionCutoff, purgeable, checkedRetention, isFinal, joinGroup, superseded, outdated, leasable, groupWait,
  type Joined, type KeyHolder, type Admission, type AdmitInput, type PurgeCutoff, type Retention, type Edge, type EdgeStart, type EdgeEnd,
} from '../core/jobs/transitions.js'
export {
  jobPool, openTry, runTry, reportEnded, storeTrouble, leaseLost, supersededBy, within,
  type LeaseTable, type LeasedRow, type LeaseAfter, type JobPool, type JobPoolOptions, type Try, type TryTable, type TryOptions,
} from '../core/jobs/pool.js'
export { reservationBook, type ReservationBook } from '../core/jobs/reservations.js'
export { retriedAs } from '../core/jobs/retry-mode.js'
export { jobMatcher, reasonMatcher, reasonOf } from '../core/jobs/job-filter.js'
export { dedupKeyOf } from '../core/jobs/dedup-key.js'
export { validLink, validHook, MAX_LINK_LENGTH } from '../core/jobs/origin.js'
export type {
  StateBackend, DedupStore, JobQueue, JobsView, JobRecord, JobState, JobStage, NewJob, JobOutcome, LeasedJob, JobWorker, Reservation,
  AddResult, LimitAsk, LimitAnswer, StopReport, JobFilter, RetryMode, JobCounts, Readiness, LifecycleContext, JobGroup, FinalState,
} from '../core/jobs/state-backend.js'
