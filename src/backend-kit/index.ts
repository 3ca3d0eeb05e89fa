/**
 * `hookpilot/backend-kit`: what a state backend of your own (PostgreSQL, DynamoDB, ...) builds on. You implement
 * a store: the primitives of one atomic write (`JobStore`, `JobTransaction`; or `AsyncJobStore`, whose primitives
 * return promises, for a network database) and of a lease (`LeaseTable`), and
 * decide no rule. The kit runs the job lifecycle over them: every write that applies several rules (`addJob`,
 * `retryJob`, `purgeJobs`), the worker pool with its leases and fencing (`jobPool`), what a crash leaves behind
 * (`crashRecovery`), and the reservation book that holds a key while its request is on its way to your store.
 * The shipped contract (`stateBackendContract` in `hookpilot/testing`) proves the result; docs/plugins.md walks
 * through a whole backend.
 *
 * @example
 * ```ts
 * import { addJob, jobPool, reservationBook, type JobStore, type LeaseTable } from 'hookpilot/backend-kit'
 * const pool = jobPool(myLeaseTable, { concurrency: 4, now: Date.now, log: () => log })
 * const add = (job, reservation) => addJob(myStore, job, reservation, { maxQueue, windowMs, now: Date.now, book, pool })
 * ```
 * @packageDocumentation
 */
export type { AnyJobStore, AsyncJobStore, AsyncJobTransaction, JobStore, JobTransaction, TransactionOptions } from '../core/jobs/worker/job-store.js'
export { addJob, retryJob, purgeJobs } from '../core/jobs/worker/store-writes.js'
export { jobPool, type JobPoolOptions } from '../core/jobs/worker/pool.js'
export type { LeaseAfter, LeaseTable, LeasedRow } from '../core/jobs/worker/lease-table.js'
export type { Logger } from '../core/types.js'
export { crashRecovery, type HeldJob, type Recovery } from '../core/jobs/worker/crash-recovery.js'
export { housekeep, type HousekeepingStore } from '../core/jobs/worker/housekeeping.js'
export { reservationBook } from '../core/jobs/worker/reservations.js'
export { leased, leaseOrder, checkedRetention, retentionCutoff } from '../core/jobs/lifecycle/transitions.js'
export { turnOf, type TurnsSeen } from '../core/jobs/lifecycle/fairness.js'
export { jobMatcher } from '../core/jobs/views/job-filter.js'
export { dedupKeyOf } from '../core/jobs/lifecycle/dedup-key.js'
export type { StateBackend } from '../core/jobs/lifecycle/state-backend.js'
export type { JobRecord, NewJob } from '../core/jobs/lifecycle/job-record.js'
export type { JobCounts, JobFilter } from '../core/jobs/lifecycle/jobs-view.js'
export { checkedNote, updateNote, MAX_NOTE_BYTES, MAX_NOTE_KEY, type Note, type NoteChange, type NotePutOptions, type NoteStore } from '../core/jobs/lifecycle/notes.js'
