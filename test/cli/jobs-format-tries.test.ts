/**
 * `jobs show` for a job whose tries went past a retry schedule lowered since they ran (issue 38, item 14): it read
 * `tries: 2 of 1`; it now says the schedule was lowered and what that means for the job's next turn.
 */
import { describe, expect, it } from 'vitest'
import { formatJob } from '../../src/cli/jobs-format.js'
import type { JobRecord } from '../../src/core/jobs/lifecycle/job-record.js'

const NOW = Date.parse('2025-01-01T00:00:00Z')
const schedule = (attempts: number) => ({ attempts, firstDelayMs: 60_000, maxDelayMs: 600_000 })

function waitingJob(stage: JobRecord['stage'], attempts: number): JobRecord {
  return {
    id: '7', route: 'pr', event: 'pull_request', deliveryId: 'd-7', dedupKey: undefined, state: 'queued', stage, answer: stage === 'deliver' ? 'ok' : undefined,
    progress: 0, attempts, runs: attempts, notBefore: NOW + 5 * 60_000, lastError: 'exited with code 1', receivedAt: NOW - 60_000, updatedAt: NOW - 1_000,
    finishedAt: undefined, group: undefined, burstAt: undefined, covers: 1, supersededBy: undefined, note: undefined, url: undefined, link: undefined, hook: undefined, usage: undefined,
  }
}

describe('jobs show: tries under a schedule lowered since', () => {
  it('an agent-stage job with 2 tries under agent.retry.attempts 1 says its next try is the last, never "2 of 1"', () => {
    const text = formatJob(waitingJob('run', 2), { now: NOW, schedules: { agent: schedule(1), delivery: schedule(8) } })
    expect(text).not.toMatch(/\d of 1\b/)
    expect(text).toMatch(/\ntries:\s+2 \(agent\.retry\.attempts is 1, lowered since\)\n/)
    expect(text).toMatch(/\nnext try:\s+\S+ \(in 5 min\), try 3, the last \(agent\.retry\.attempts is 1, lowered since: a failure ends the job\)\n/)
  })

  it('a delivery-stage job past delivery.retry.attempts says its next turn ends it without a try', () => {
    const text = formatJob(waitingJob('deliver', 3), { now: NOW, schedules: { agent: schedule(5), delivery: schedule(2) } })
    expect(text).toMatch(/\ntries:\s+3 \(delivery\.retry\.attempts is 2, lowered since\)\n/)
    expect(text).toMatch(/try 4, which will not run \(delivery\.retry\.attempts is 2, lowered since: the job ends failed at its turn\)/)
  })

  it('within the schedule, it still reads "1 of 4"', () => {
    const text = formatJob(waitingJob('run', 1), { now: NOW, schedules: { agent: schedule(4), delivery: schedule(8) } })
    expect(text).toMatch(/\ntries:\s+1 of 4 \(agent\.retry\)\n/)
    expect(text).toMatch(/try 2 of 4 \(agent\.retry\)/)
  })
})
