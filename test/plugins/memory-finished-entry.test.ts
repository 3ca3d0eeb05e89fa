/** The memory backend's compact finished jobs: every read gives back the record the lifecycle returned. */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../../src/core/jobs/lifecycle/job-record.js'
import { accepted, answered, finished, leased } from '../../src/core/jobs/lifecycle/transitions.js'
import { FinishedEntry, packable } from '../../src/plugins/state/memory/finished-entry.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { fakeClock } from '../../src/testing/clock.js'
import { newJob } from '../../src/testing/state-backend.js'

const T = 1_764_000_000_000
const running = (): JobRecord => leased(accepted({ ...newJob(randomUUID()), receivedAt: T - 250 }, '42', T - 200), T - 100)

/** The record read back: equal, with the same keys in the same order (what `jobs show --json` prints). */
function expectSame(record: JobRecord): void {
  expect(packable(record)).toBe(true)
  const back = new FinishedEntry(record, undefined).job
  expect(back).toStrictEqual(record)
  expect(Object.keys(back)).toEqual(Object.keys(record))
  expect(JSON.stringify(back)).toBe(JSON.stringify(record))
}

describe('FinishedEntry', () => {
  it('gives back each kind of finished record as it was stored', () => {
    expectSame(finished(running(), { kind: 'done' }, T))
    expectSame(finished(running(), { kind: 'done', url: 'https://example.test/c/1' }, T))
    expectSame(finished(answered(running(), 'the review', T - 50), { kind: 'done' }, T))
    expectSame(finished(running(), { kind: 'skipped', reason: 'silent' }, T))
    expectSame(finished({ ...running(), group: 'pr#7', burstAt: T - 300 }, { kind: 'superseded', reason: 'newer', by: '43' }, T))
    expectSame(finished(running(), { kind: 'failed', reason: 'boom' }, T))
    // A time after the end (a retry planned past it) is kept too.
    expectSame(finished({ ...running(), notBefore: T + 5_000 }, { kind: 'failed', reason: 'late' }, T))
  })

  it('is not used for a record whose times are not whole milliseconds, that is unfinished, or that has other fields', () => {
    expect(packable(finished({ ...running(), receivedAt: T - 0.1 }, { kind: 'done' }, T))).toBe(false)
    expect(packable(finished(running(), { kind: 'done' }, T + 0.5))).toBe(false)
    expect(packable(running())).toBe(false)
    expect(packable({ ...finished(running(), { kind: 'done' }, T), extra: 1 } as JobRecord)).toBe(false)
  })
})

describe('memoryState with compact finished jobs', () => {
  it('shows, retries and purges a finished job as before', async () => {
    const clock = fakeClock(T)
    const state = memoryState({ concurrency: 1, maxQueue: 10, now: clock.now, pollMs: 5 })
    const seen: JobRecord[] = []
    await state.queue.add(newJob('a'), await state.dedup.reserve('pr\u0000a'))
    state.queue.start(async ({ job }) => {
      seen.push(job)
      return { kind: 'done', url: 'https://example.test/c/1' }
    })
    await expect.poll(async () => (await state.jobs.counts()).done).toBe(1)
    const done = await state.jobs.get('1')
    expect(done).toStrictEqual(finished(seen[0]!, { kind: 'done', url: 'https://example.test/c/1' }, clock.now()))
    expect(await state.jobs.list()).toStrictEqual([done])
    expect((await state.dedup.reserve('pr\u0000a')).status).toBe('duplicate')
    // Run again by an operator: queued with its payload, and done once more.
    expect((await state.jobs.retry('1', 'rerun-agent'))?.state).toBe('queued')
    await expect.poll(() => seen.length).toBe(2)
    expect(seen[1]?.id).toBe('1')
    await expect.poll(async () => (await state.jobs.get('1'))?.state).toBe('done')
    clock.advance(2 * 60 * 60 * 1000)
    expect(await state.jobs.purge(clock.now())).toBe(1)
    expect(await state.jobs.list()).toEqual([])
    await state.queue.stop(0)
  })
})
