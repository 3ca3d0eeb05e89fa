/**
 * Every transition of a job, published on `node:diagnostics_channel` (as undici and pino publish theirs): a
 * tracer, a test or an operator's own code subscribes to {@link JOB_CHANNEL} and sees each job accepted,
 * superseded, leased, answered, and how each try ended, in order, with nothing published while nobody listens.
 * The payload is the job's names and times, never its payload or answer (sender text).
 */
import { channel } from 'node:diagnostics_channel'
import type { JobRecord } from '../lifecycle/job-record.js'

/** The channel's name: `diagnostics_channel.subscribe('hookpilot:job', (event) => ...)`. */
export const JOB_CHANNEL = 'hookpilot:job'

/** What happened to a job. */
export type JobEventKind =
  | 'accepted' | 'superseded' | 'leased' | 'answered' | 'delivered' | 'skipped' | 'failed'
  /** The try ended and the job waits for another at a later time. */
  | 'retried'
  /** The try was stopped (the gateway's stop, a lost lease): the job is queued again as it was. */
  | 'interrupted'

/** One event on {@link JOB_CHANNEL}. */
export interface JobEvent {
  readonly kind: JobEventKind
  /** The job's id in its backend. */
  readonly job: string
  readonly route: string
  readonly deliveryId: string
  readonly event: string
  /** Tries of the job's current stage so far. */
  readonly attempts: number
  /** When it happened, on the gateway's clock (ms since the epoch). */
  readonly at: number
  /** Why it failed, was retried, skipped or superseded. */
  readonly reason?: string | undefined
  /** The newer job that superseded this one. */
  readonly by?: string | undefined
}

const jobs = channel(JOB_CHANNEL)

/** Publishes `kind` for `job` at `at`, when anyone listens. */
export function publishJob(kind: JobEventKind, job: Pick<JobRecord, 'id' | 'route' | 'deliveryId' | 'event' | 'attempts'>, at: number, more: Pick<JobEvent, 'reason' | 'by'> = {}): void {
  if (!jobs.hasSubscribers) return
  const event: JobEvent = { kind, job: job.id, route: job.route, deliveryId: job.deliveryId, event: job.event, attempts: job.attempts, at, ...more }
  jobs.publish(event)
}

/** What a try's last write (its outcome, stored) says happened. */
export function publishEnded(stored: JobRecord, at: number): void {
  switch (stored.state) {
    case 'done':
      return publishJob('delivered', stored, at)
    case 'skipped':
    case 'superseded':
      return publishJob(stored.state, stored, at, { reason: stored.note, by: stored.supersededBy })
    case 'failed':
      return publishJob('failed', stored, at, { reason: stored.lastError })
    case 'queued':
      return stored.notBefore > at ? publishJob('retried', stored, at, { reason: stored.lastError }) : publishJob('interrupted', stored, at)
    case 'running':
      return undefined
  }
}
