/**
 * The store a state backend implements: a handful of atomic primitives over its records, and no rule. The kit
 * (store-writes.ts) runs every write that applies more than one rule of the lifecycle (an add: admit, refuse,
 * queue again or move the key, insert, join the group, write the others; an operator's retry; purge) over it,
 * so the order of those rules is written once for every backend. The worker side of a backend (leases,
 * renewals, a try's fenced writes) is the worker kit's {@link LeaseTable}.
 *
 * A store is synchronous ({@link JobStore}: memory, SQLite, any store whose transaction runs in one go) or
 * asynchronous ({@link AsyncJobStore}: a network database, whose every primitive is a round trip inside a
 * transaction it holds open). The kit writes each sequence once, as steps (store-steps.ts), and drives them over
 * either.
 */
import type { JobRecord, NewJob } from '../lifecycle/job-record.js'
import type { PurgeCutoff } from '../lifecycle/transitions.js'
import type { TurnsSeen } from '../lifecycle/fairness.js'

/**
 * The primitives of one atomic write. They are synchronous: the kit decides every record between two of them
 * inside the write, so a store runs its transaction's `work` in one go (SQLite inside its group commit, memory
 * in one turn of the event loop). `P` is a new job's payload as the store keeps it ({@link JobStore.prepare}).
 */
export interface JobTransaction<P> {
  /** The record of job `id`, if stored. */
  get(id: string): JobRecord | undefined
  /**
   * Stores `record` over the job of its id: every field, its de-dup key included (a done job past its window
   * gives its key up to a newer job of the same delivery). A job that stays `running` keeps its lease (a newer
   * job of its group outdated it); any other holds none.
   */
  put(record: JobRecord): void
  /**
   * Stores a new job: `record` as the lifecycle made it (its `id` is not yet given) with `payload`; returns the
   * id the store gives it. The de-dup key's previous holder, if any, gave the key up in this write before.
   */
  insert(record: JobRecord, payload: P): string
  /** The job that holds de-dup key `key` now, if any. */
  holder(key: string): JobRecord | undefined
  /** The queued and running jobs of concurrency group `group`. */
  members(group: string): readonly JobRecord[]
  /** The group's most recently received job, in any state (the job with the latest `receivedAt`). */
  newest(group: string): Pick<JobRecord, 'id' | 'receivedAt'> | undefined
  /** How many jobs are queued now. */
  queued(): number
  /**
   * The turns a new job of fairness key `fairKey` (undefined: none) takes its own from (the lifecycle's
   * `takeTurn`): the lowest turn of the queued jobs, the highest of the running ones, and the highest of the
   * key's queued ones. Three reads of an index on (state, turn) and one on (fair key, state, turn) in SQL.
   * Optional, so that a backend written before fair turns still works: without it every job takes turn 0 and
   * the lease order is first due, first served (the contract's fairness case names what is missing).
   */
  turns?(fairKey: string | undefined): TurnsSeen
  /** Deletes the finished jobs that `cutoff` names (the lifecycle's `purgeable`); returns how many. */
  purge(cutoff: PurgeCutoff): number
}

/** What a {@link JobStore.transaction} is told about its write. */
export interface TransactionOptions {
  /** The write may store new jobs (an add), whose `202`s follow it. */
  readonly admits?: boolean | undefined
}

/** A backend's store: its atomic writes, and how a new job's payload is made ready for one. */
export interface JobStore<P> {
  /**
   * A new job's payload as the store keeps it, made before the write that stores it and outside of it (SQLite
   * compresses it on a thread, so its group commit never waits for the compression). It may throw: the job is
   * then refused (the request is answered 503).
   */
  prepare(job: NewJob): P | Promise<P>
  /**
   * Runs `work` as one atomic write; resolves with its result once stored (a 202 goes out after this).
   * `admits` marks the write of an add, which may store new jobs: a store that must check its medium before it
   * acknowledges a new job (SQLite stats its file with each commit that admits) does it for these writes.
   */
  transaction<T>(work: (tx: JobTransaction<P>) => T, options?: TransactionOptions): Promise<T>
}

/**
 * The primitives of one atomic write of an {@link AsyncJobStore}: each of {@link JobTransaction}'s, answered by
 * a promise (a statement sent inside the store's open transaction). The kit awaits each before the next, so a
 * transaction never has two statements in flight.
 */
export type AsyncJobTransaction<P> = {
  readonly [K in keyof JobTransaction<P>]: (...args: Parameters<NonNullable<JobTransaction<P>[K]>>) => Promise<ReturnType<NonNullable<JobTransaction<P>[K]>>>
}

/**
 * A store whose writes cannot run in one go (PostgreSQL over the network): its transaction hands `work` the
 * promise-returning primitives, and commits once `work` resolves (rolls back when it rejects). It may run
 * `work` again after a conflict it rolled back (a serialization failure): the kit's sequences start over then.
 */
export interface AsyncJobStore<P> {
  /** Marks the store as asynchronous: the kit drives its sequences with an `await` at each primitive. */
  readonly awaits: true
  /** As {@link JobStore.prepare}. */
  prepare(job: NewJob): P | Promise<P>
  /** Runs `work` as one atomic write; resolves with its result once committed (a 202 goes out after this). */
  transaction<T>(work: (tx: AsyncJobTransaction<P>) => Promise<T>, options?: TransactionOptions): Promise<T>
}

/** Either kind of store: what the kit's writes (store-writes.ts) run over. */
export type AnyJobStore<P> = JobStore<P> | AsyncJobStore<P>
