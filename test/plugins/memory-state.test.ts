/** The in-memory backend: the state-backend contract, and its bounds. */
import { describe, expect, it } from 'vitest'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { fakeClock } from '../../src/testing/clock.js'
import { newJob, stateBackendContract } from '../../src/testing/state-backend.js'

// No `peer`: the memory backend lives in one process, so the cases of a second instance do not apply.
stateBackendContract('memoryState', {
  make: (options) => memoryState({ ...options, keepFinishedMs: options.keepDoneMs }),
})

describe('memoryState', () => {
  it('forgets finished jobs past keepFinishedMs, and past maxFinished oldest first', async () => {
    const clock = fakeClock()
    const state = memoryState({ concurrency: 1, maxQueue: 10, now: clock.now, dedupWindowMs: 500, keepFinishedMs: 1_000, maxFinished: 2, pollMs: 5 })
    for (const id of ['a', 'b', 'c']) await state.queue.add(newJob(id), await state.dedup.reserve(`pr\u0000${id}`))
    state.queue.start(async () => ({ kind: 'done' }))
    // Each finish sweeps: past maxFinished the oldest done job is forgotten at once.
    await expect.poll(async () => (await state.jobs.list()).map((j) => [j.deliveryId, j.state])).toEqual([['c', 'done'], ['b', 'done']])
    const release = (r: Awaited<ReturnType<typeof state.dedup.reserve>>) => (r.status === 'duplicate' ? undefined : r.release())
    clock.advance(1_001)
    release(await state.dedup.reserve('pr\u0000other'))
    expect(await state.jobs.list()).toEqual([])
    expect((await state.dedup.reserve('pr\u0000a')).status).toBe('new')
    await state.queue.stop(0)
  })
})
