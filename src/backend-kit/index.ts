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
export type { AnyJobStore, AsyncJobStore, AsyncJobTransaction, JobStore, JobTransaction, TransactionOptions } from '../core/jobs/job-store.js'
export { addJob, retryJob, purgeJobs } from '../core/jobs/store-writes.js'
export { jobPool, type JobPoolOptions, type LeaseAfter, type LeaseTable, type LeasedRow } from '../core/jobs/pool.js'
export type { Logger } from '../core/types.js'
export { crashRecovery, type HeldJob } from '../core/jobs/crash-recovery.js'
export { reservationBook } from '../core/jobs/reservations.js'
export { leased, checkedRetention, retentionCutoff } from '../core/jobs/transitions.js'
export { jobMatcher } from '../core/jobs/job-filter.js'
export { dedupKeyOf } from '../core/jobs/dedup-key.js'
export type { StateBackend, JobRecord, NewJob, JobCounts, JobFilter } from '../core/jobs/state-backend.js'
export type { Recovery } from '../core/jobs/crash-recovery.js'
