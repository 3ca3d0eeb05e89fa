import { describe, expect, it } from 'vitest'
import { jobPool } from '../../src/core/jobs/worker/pool.js'
import type { LeaseTable, LeasedRow } from '../../src/core/jobs/worker/lease-table.js'
import type { JobOutcome } from '../../src/core/jobs/lifecycle/state-backend.js'
import { silentLogger } from '../../src/core/log/logger.js'
import { leasedRecord } from '../fixtures/dispatch.js'

/** A table of `queued` waiting jobs that counts how often the pool asks it for the next due time. */
function countingTable(queued: number) {
  let waiting = queued
  let seq = 0
  const calls = { nextDue: 0, lease: 0 }
  const table: LeaseTable = {
    async lease(max) {
      calls.lease++
      const rows: LeasedRow[] = []
      while (rows.length < max && waiting > 0) {
        waiting--
        rows.push({ job: leasedRecord({ id: String(++seq) }), payload: {}, token: `t${seq}` })
      }
      return rows
    },
    update: async (_id, _token, change) => change(leasedRecord()),
    renew: async (held) => new Set(held.keys()),
    recordProcess() {},
    nextDue: () => {
      calls.nextDue++
      return waiting > 0 ? 0 : undefined
    },
    unfinished: () => waiting,
  }
  return { table, calls, add: () => void waiting++ }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('job pool with every slot taken', () => {
  it('neither leases nor looks for the next due job on each add, and leases again when a job ends', async () => {
    const { table, calls, add } = countingTable(2)
    const pool = jobPool(table, { concurrency: 2, now: () => 0, log: () => silentLogger })
    const release: Array<(outcome: JobOutcome) => void> = []
    pool.start(() => new Promise((resolve) => release.push(resolve)))
    await settle()
    expect(release).toHaveLength(2)

    const before = { ...calls }
    for (let i = 0; i < 100; i++) {
      add()
      pool.wake()
    }
    await settle()
    expect(calls).toEqual(before) // a burst while the agents are busy costs the table nothing

    release[0]!({ kind: 'done' })
    await settle()
    await settle()
    expect(release).toHaveLength(3) // the freed slot took the next job
    for (const done of release.slice(1)) done({ kind: 'done' })
    await pool.stop(1000)
  })

  it('frees a slot when the try ends: the next lease goes with the outcome, not after it is stored', async () => {
    const { table, calls } = countingTable(3)
    const order: string[] = []
    const pending: Array<() => void> = []
    const lease = table.lease.bind(table)
    table.lease = (max, t, until) => (order.push('lease'), lease(max, t, until))
    table.update = (_id, _token, change) => (order.push('finish'), new Promise((resolve) => pending.push(() => resolve(change(leasedRecord())))))
    const pool = jobPool(table, { concurrency: 1, now: () => 0, log: () => silentLogger })
    const ran: string[] = []
    pool.start(async ({ job }) => (ran.push(job.id), { kind: 'done' }))
    await settle()
    // No outcome is stored yet, and each job ran in the slot its predecessor freed, one at a time.
    expect(order.slice(0, 4)).toEqual(['lease', 'finish', 'lease', 'finish'])
    expect(ran).toEqual(['1', '2', '3'])
    expect(calls.lease).toBeGreaterThanOrEqual(3)
    for (const store of pending) store()
    await pool.stop(1000)
  })
})
