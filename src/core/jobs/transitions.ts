/**
 * The job lifecycle's transitions as pure functions over a record, so every backend moves a job the same way:
 * what a try's outcome does, what a redelivery of a failed job does, what an operator's retry does.
 */
import { GatewayError } from '../errors.js'
import type { JobOutcome, JobRecord } from './state-backend.js'

/** The record after a try ended with `outcome` at time `t`. */
export function finishedRecord(job: JobRecord, outcome: JobOutcome, t: number): JobRecord {
  switch (outcome.kind) {
    case 'done':
      return { ...job, state: 'done', updatedAt: t, finishedAt: t }
    case 'failed':
      return { ...job, state: 'failed', lastError: outcome.reason, updatedAt: t, finishedAt: t }
    case 'retry':
      return { ...job, state: 'queued', notBefore: outcome.at, lastError: outcome.reason, updatedAt: t }
    case 'interrupted':
      // The try did not happen as far as the job is concerned: it is not counted.
      return { ...job, state: 'queued', attempts: Math.max(0, job.attempts - 1), notBefore: t, updatedAt: t }
  }
}

/**
 * A failed job, queued again by a redelivery of its event: it resumes at the stage it failed in (a stored
 * answer is delivered without a new agent run), with a fresh count of tries.
 */
export function queuedAgain(job: JobRecord, t: number): JobRecord {
  return { ...job, state: 'queued', attempts: 0, notBefore: t, updatedAt: t, finishedAt: undefined }
}

/**
 * An operator's `hookpilot jobs retry`: a failed job resumes where it failed (as a redelivery would); a done
 * job runs again from the start, agent included (its answer was delivered; a retry asks for a new one).
 * A queued or running job has nothing to retry.
 */
export function retriedRecord(job: JobRecord, t: number): JobRecord {
  if (job.state === 'failed') return queuedAgain(job, t)
  if (job.state === 'done') {
    return { ...queuedAgain(job, t), stage: 'run', answer: undefined, progress: 0, lastError: undefined }
  }
  throw new GatewayError('ERR_STATE', `job ${job.id} is ${job.state}: only a done or failed job can be retried.`)
}
