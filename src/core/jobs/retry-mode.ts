/**
 * Which edge of the lifecycle an operator's retry takes, so that every backend's `JobsView.retry` stores the
 * record the same function returned (the backends decide no rule; see transitions.ts).
 */
import type { JobRecord, RetryMode } from './state-backend.js'
import { rerun, resent, retried } from './transitions.js'

/** The record of `job` queued again at `t` as `mode` says; throws when the lifecycle refuses it. */
export function retriedAs(job: JobRecord, mode: RetryMode, t: number): JobRecord {
  switch (mode) {
    case 'rerun-agent':
      return rerun(job, t)
    case 'resend-answer':
      return resent(job, t)
    default:
      return retried(job, t)
  }
}
