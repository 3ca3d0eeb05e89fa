/**
 * The worker kit through a store outage (issue 25, item 19): a store that refuses writes (a full disk) pauses
 * leasing with a growing pause, says so once and once more when it works again, and a running job whose write
 * was refused goes back to the queue instead of ending `failed`.
 */
import { describe, expect, it } from 'vitest'
import { jobPool } from '../../src/core/jobs/worker/pool.js'
import type { LeaseTable } from '../../src/core/jobs/worker/lease-table.js'
import type { JobRecord } from '../../src/core/jobs/lifecycle/job-record.js'
import { recordingLogger } from '../../src/testing/context.js'
import { leasedRecord } from '../fixtures/dispatch.js'

const diskFull = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })

describe('jobPool during a store outage', () => {
  it('puts off leasing with a growing pause, logs the outage once and its end once', async () => {
    const log = recordingLogger()
    let full = true
    const leases: number[] = []
    const stored: JobRecord[] = []
    let given = false
    const table: LeaseTable = {
      async lease() {
        leases.push(Date.now())
        if (full) throw diskFull()
        return given ? [] : ((given = true), [{ job: leasedRecord(), payload: {}, token: 't1' }])
      },
      update: async (_id, _token, change) => {
        const job = change(leasedRecord())
        stored.push(job)
        return job
      },
      renew: async (held) => new Set(held.keys()),
      recordProcess: () => {},
      // A job is due all along: before the pause, the pool looked for it again at once, hundreds of times a second.
      nextDue: () => 0,
      unfinished: () => 1,
    }
    const pool = jobPool(table, { concurrency: 1, now: Date.now, log: () => log, pollMs: 5 })
    pool.start(async () => ({ kind: 'done' }))
    await expect.poll(() => leases.length, { timeout: 5_000 }).toBe(3)
    // 0.5 s, then 1 s between the rounds.
    expect(leases[2]! - leases[0]!).toBeGreaterThanOrEqual(1_400)
    expect(log.lines.filter((l) => l.level === 'error')).toHaveLength(1)
    expect(log.lines[0]?.message).toMatch(/state store failed \(cannot lease jobs\).*at most 30 s/)
    full = false
    pool.wake() // what a backend does once a write got through: no waiting out the pause
    await expect.poll(() => stored.map((j) => j.state)).toEqual(['done'])
    await expect.poll(() => log.lines.filter((l) => /works again/.test(l.message))).toHaveLength(1)
    expect(log.lines.filter((l) => l.level === 'error')).toHaveLength(1)
    await pool.stop(0)
  })

  it('a running job whose write the store refused goes back to the queue, this try not counted, instead of failing', async () => {
    const log = recordingLogger()
    const stored: JobRecord[] = []
    let leased = false
    const table: LeaseTable = {
      lease: async () => (leased ? [] : ((leased = true), [{ job: leasedRecord({ attempts: 1 }), payload: {}, token: 't1' }])),
      update: async (_id, _token, change) => {
        const job = change(leasedRecord({ attempts: 1 }))
        if (job.state === 'running') throw diskFull() // the answer: pages the full file does not have
        stored.push(job)
        return job
      },
      renew: async (held) => new Set(held.keys()),
      recordProcess: () => {},
      nextDue: () => undefined,
      unfinished: () => 0,
    }
    const pool = jobPool(table, { concurrency: 1, now: Date.now, log: () => log, pollMs: 5 })
    // As the dispatcher does: the answer is saved before delivery, and a save that throws ends the try.
    pool.start(async (job) => {
      await job.saveAnswer('a long answer')
      return { kind: 'done' }
    })
    await expect.poll(() => stored).toHaveLength(1)
    expect(stored[0]).toMatchObject({ state: 'queued', stage: 'run', attempts: 0, finishedAt: undefined })
    expect(log.text()).toMatch(/state store failed \(cannot store what a running job wrote\)/)
    await pool.stop(0)
  })
})
