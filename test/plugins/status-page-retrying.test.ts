/**
 * The status page lists the jobs waiting to retry, with why and when their next try runs (issue 38, item 14): it
 * showed them only inside the `queued` count. A real SQLite state file: the retry is the queue's own.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../src/core/log/logger.js'
import { sqliteState } from '../../src/plugins/state/sqlite/sqlite-state.js'
import { jobsSnapshot } from '../../src/plugins/status-page/snapshot.js'
import { STATUS_HTML, STATUS_JS } from '../../src/plugins/status-page/assets.js'
import { newJob } from '../../src/testing/state-backend.js'

describe('status page: jobs waiting to retry', () => {
  it('lists each with its reason and next try, soonest first, and leaves fresh queued jobs out', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-status-retry-'))
    const state = sqliteState({ path: join(dir, 'state.db'), concurrency: 1, maxQueue: 10 })
    await state.start?.({ log: silentLogger })
    const base = Date.now()
    const later = { 'late-1': base + 20 * 60_000, 'soon-2': base + 3 * 60_000 } as Record<string, number>
    for (const id of Object.keys(later)) await state.queue.add(newJob(id), await state.dedup.reserve(`pr\u0000${id}`))
    state.queue.start(async (leased) => ({ kind: 'retry', at: later[leased.job.deliveryId] ?? base, reason: `overloaded (${leased.job.deliveryId})` }))
    await expect.poll(async () => (await state.jobs.list({ state: 'queued', reason: '*' })).length, { timeout: 5_000 }).toBe(2)
    await state.queue.stop(1_000)
    // A job that never ran is queued too, but it waits for its first try, not a retry.
    await state.queue.add(newJob('fresh-3'), await state.dedup.reserve('pr\u0000fresh-3'))

    const snapshot = await jobsSnapshot(state.jobs, base)
    await state.close?.()
    expect(snapshot.counts.queued).toBe(3)
    expect(snapshot.retryingCount).toBe(2)
    expect(snapshot.retrying.map((j) => [j.deliveryId, j.reason, j.runsAt, j.attempts])).toEqual([
      ['soon-2', 'overloaded (soon-2)', later['soon-2'], 1],
      ['late-1', 'overloaded (late-1)', later['late-1'], 1],
    ])
    // The page has the table and the script fills it from `retrying`.
    expect(STATUS_HTML).toContain('<table id="retrying">')
    expect(STATUS_JS).toContain("rows('retrying', s.retrying")
  })
})
