/** The worker pool's own promises, with a table that misbehaves on purpose. */
import { describe, expect, it } from 'vitest'
import { jobPool, type LeaseTable } from '../../src/core/jobs/pool.js'
import type { JobOutcome } from '../../src/core/jobs/state-backend.js'
import { silentLogger } from '../../src/core/log/logger.js'
import { leasedRecord } from '../fixtures/dispatch.js'

describe('jobPool', () => {
  it('stores an outcome the table refused at first, instead of leaving the job running', async () => {
    const stored: JobOutcome[] = []
    let refusals = 2
    let leased = false
    const table: LeaseTable = {
      lease: async () => (leased ? [] : ((leased = true), [{ job: leasedRecord(), payload: {} }])),
      saveAnswer: async () => {},
      saveProgress: async () => {},
      recordProcess: () => {},
      async finish(_id, outcome) {
        if (refusals-- > 0) throw new Error('database is locked')
        stored.push(outcome)
      },
      nextDue: () => undefined,
      unfinished: () => 0,
    }
    const pool = jobPool(table, { concurrency: 1, now: Date.now, log: () => silentLogger, pollMs: 5 })
    pool.start(async () => ({ kind: 'done' }))
    await expect.poll(() => stored, { timeout: 5_000 }).toEqual([{ kind: 'done' }])
    await pool.stop(0)
  })
})
