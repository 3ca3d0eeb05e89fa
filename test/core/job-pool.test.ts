/** The worker kit's own promises, with a table that misbehaves on purpose. */
import { describe, expect, it } from 'vitest'
import { jobPool } from '../../src/core/jobs/worker/pool.js'
import { openTry, runTry } from '../../src/core/jobs/worker/try.js'
import type { LeaseTable } from '../../src/core/jobs/worker/lease-table.js'
import type { JobOutcome } from '../../src/core/jobs/lifecycle/state-backend.js'
import type { JobRecord } from '../../src/core/jobs/lifecycle/job-record.js'
import { MAX_RUNS } from '../../src/core/jobs/lifecycle/transitions.js'
import { silentLogger } from '../../src/core/log/logger.js'
import { fakeClock } from '../../src/testing/clock.js'
import { leasedRecord } from '../fixtures/dispatch.js'

/** A table holding one leased job under token `t1`, whose writes go through `write`. */
function oneJobTable(write: (job: JobRecord) => JobRecord | undefined): LeaseTable {
  let leased = false
  return {
    lease: async () => (leased ? [] : ((leased = true), [{ job: leasedRecord(), payload: {}, token: 't1' }])),
    update: async (_id, token, change) => (token === 't1' ? write(change(leasedRecord())) : undefined),
    renew: async (held) => new Set(held.keys()),
    recordProcess: () => {},
    nextDue: () => undefined,
    unfinished: () => 0,
  }
}

describe('jobPool', () => {
  it('stores an outcome the table refused at first, instead of leaving the job running', async () => {
    const stored: JobRecord[] = []
    let refusals = 2
    const table = oneJobTable((job) => {
      if (job.state === 'running') return job
      if (refusals-- > 0) throw new Error('database is locked')
      stored.push(job)
      return job
    })
    const pool = jobPool(table, { concurrency: 1, now: Date.now, log: () => silentLogger, pollMs: 5 })
    pool.start(async () => ({ kind: 'done' }))
    await expect.poll(() => stored.map((j) => j.state), { timeout: 5_000 }).toEqual(['done'])
    await pool.stop(0)
  })

  it('a try whose lease the table no longer confirms is aborted, and its outcome is not stored', async () => {
    const stored: JobRecord[] = []
    let confirm = true
    const table = oneJobTable((job) => (confirm ? (stored.push(job), job) : undefined))
    table.renew = async () => new Set(confirm ? ['1'] : [])
    const pool = jobPool(table, { concurrency: 1, now: Date.now, log: () => silentLogger, pollMs: 5, leaseMs: 60 })
    let signal: AbortSignal | undefined
    pool.start((job) => new Promise<JobOutcome>((resolve) => {
      signal = job.signal
      job.signal.addEventListener('abort', () => resolve({ kind: 'done' }))
    }))
    await expect.poll(() => signal).toBeDefined()
    confirm = false
    await expect.poll(() => signal?.aborted).toBe(true)
    expect(String(signal?.reason)).toMatch(/lease on job 1 was lost/)
    await pool.stop(1_000)
    expect(stored.filter((j) => j.state !== 'running')).toEqual([])
  })

  it('a try whose renewals keep failing stops a sixth of its lease before the lease runs out, not sooner', async () => {
    const table = oneJobTable((job) => job)
    let renewals = 0
    table.renew = async () => {
      renewals++
      throw new Error('disk full')
    }
    // The lease is judged on the pool's clock, which only this test moves: no timing margin to miss.
    const clock = fakeClock()
    const pool = jobPool(table, { concurrency: 1, now: clock.now, log: () => silentLogger, pollMs: 5, leaseMs: 600 })
    let signal: AbortSignal | undefined
    pool.start((job) => new Promise<JobOutcome>((resolve) => {
      signal = job.signal
      job.signal.addEventListener('abort', () => resolve({ kind: 'done' }))
    }))
    await expect.poll(() => signal).toBeDefined()
    clock.advance(499) // 101 ms of the lease left: more than a sixth (100 ms)
    const seen = renewals
    await expect.poll(() => renewals).toBeGreaterThan(seen + 1)
    expect(signal?.aborted).toBe(false)
    clock.advance(1) // a sixth left: the next renewal round gives up
    await expect.poll(() => signal?.aborted).toBe(true)
    expect(String(signal?.reason)).toMatch(/lease on job 1 was lost/)
    await pool.stop(1_000)
  })
})

describe('runTry', () => {
  it(`fails a job whose agent stage was started more than ${MAX_RUNS} times (a job that keeps killing the gateway), without running it`, async () => {
    const row = { job: leasedRecord({ attempts: MAX_RUNS + 1 }), payload: {}, token: 't' }
    const open = openTry(row, { update: async (_i, _t, change) => change(row.job), recordProcess: () => {} }, { now: Date.now, leaseMs: 1_000, log: () => silentLogger })
    let ran = false
    const outcome = await runTry(open, async () => ((ran = true), { kind: 'done' }), Date.now())
    expect(ran).toBe(false)
    expect(outcome).toMatchObject({ kind: 'failed', reason: expect.stringContaining(`each of ${MAX_RUNS} runs`) })
    const fine = openTry({ ...row, job: leasedRecord({ attempts: MAX_RUNS }) }, { update: async () => undefined, recordProcess: () => {} }, { now: Date.now, leaseMs: 1_000, log: () => silentLogger })
    expect(await runTry(fine, async () => ({ kind: 'done' }), Date.now())).toEqual({ kind: 'done' })
  })
})
