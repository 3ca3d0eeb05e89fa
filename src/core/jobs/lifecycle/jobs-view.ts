/**
 * The operators' view of the jobs (`hookpilot jobs list|show|retry|purge`, the status page): which jobs to list,
 * how to queue a finished one again, counts. Re-exported by state-backend.ts.
 */
import type { JobState } from '../../job-state.js'
import type { JobRecord } from './job-record.js'

/**
 * Which jobs {@link JobsView.list} returns, newest first (in the order they were accepted). Every field narrows
 * the list; `before` pages through it: each page asks for the jobs older than the last one of the page before,
 * so no call holds more than `limit` records, however many jobs match.
 */
export interface JobFilter {
  readonly state?: JobState | undefined
  readonly route?: string | undefined
  /** Jobs that last changed at or after this time (ms since the epoch): for a finished job, when it ended. */
  readonly since?: number | undefined
  /** Jobs that last changed at or before this time (ms since the epoch). */
  readonly until?: number | undefined
  /**
   * Jobs whose reason (why it failed or waits to retry, why it was skipped or superseded) holds this text, or,
   * when it has a `*` or `?`, matches it as a glob over the whole reason; case-insensitive. A done job has none.
   */
  readonly reason?: string | undefined
  /** Only jobs accepted before the job of this id: the cursor of the next page (the last id of this one). */
  readonly before?: string | undefined
  readonly limit?: number | undefined
}

/**
 * How {@link JobsView.retry} queues a finished job again: `resume` is the lifecycle's `retried` (a failed job
 * resumes where it failed, any other runs from the start); `rerun-agent` runs the agent again whatever the
 * job's stage (`rerun`); `resend-answer` delivers the stored answer again without a new agent run (`resent`).
 */
export type RetryMode = 'resume' | 'rerun-agent' | 'resend-answer'

/** Counts of jobs by state. */
export type JobCounts = Readonly<Record<JobState, number>>

/** What operators see and do: `hookpilot jobs list|show|retry|purge`. */
export interface JobsView {
  list(filter?: JobFilter): Promise<JobRecord[]>
  get(id: string): Promise<JobRecord | undefined>
  /**
   * The job of one delivery: the one that holds its de-dup key (route and delivery id, see `dedupKeyOf`), which
   * is the newest job of that delivery; undefined when the gateway holds none (never received, purged, or
   * stored under a timestamp id, which has no key). One indexed read, whatever the number of jobs.
   */
  find(route: string, deliveryId: string): Promise<JobRecord | undefined>
  /**
   * Re-queues a finished job to run now, as `mode` says (default `resume`: a failed job from where it failed,
   * any other from the start). Resolves the job as re-queued, or undefined when there is no such job; throws
   * when the job is queued or running, or when `resend-answer` finds no stored answer.
   */
  retry(id: string, mode?: RetryMode): Promise<JobRecord | undefined>
  /** Deletes finished jobs (done or failed) that ended before `before`; resolves how many. */
  purge(before: number): Promise<number>
  counts(): Promise<JobCounts>
}
