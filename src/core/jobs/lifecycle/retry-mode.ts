/**
 * Which edge of the lifecycle an operator's retry takes, so that every backend's `JobsView.retry` stores the
 * record the same function returned (the backends decide no rule; see transitions.ts).
 */
import { GatewayError } from '../../errors.js'
import type { JobRecord } from './job-record.js'
import type { RetryMode } from './jobs-view.js'
import { rerun, resent, retried } from './transitions.js'

/**
 * The record of `job` queued again at `t` as `mode` says; throws when the lifecycle refuses it, and on a mode
 * that is not a `RetryMode` (from JavaScript, or a cast): taking some other edge instead would run a job again in
 * a way the operator did not ask for.
 */
export function retriedAs(job: JobRecord, mode: RetryMode, t: number): JobRecord {
  switch (mode) {
    case 'resume':
      return retried(job, t)
    case 'rerun-agent':
      return rerun(job, t)
    case 'resend-answer':
      return resent(job, t)
    default:
      throw new GatewayError('ERR_STATE', `unknown retry mode ${JSON.stringify(mode satisfies never)}: use resume, rerun-agent or resend-answer`)
  }
}
