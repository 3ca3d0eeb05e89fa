/** The in-memory backend: the state-backend contract, and its bounds. */
import { describe, expect, it } from 'vitest'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { fakeClock } from '../../src/testing/clock.js'
import { newJob, stateBackendContract } from '../../src/testing/state-backend.js'

const ONE_PROCESS = 'the memory backend lives in one process: no second instance or process can share its jobs'
stateBackendContract('memoryState', {
  make: (options) => memoryState({ ...options, keepFinishedMs: options.keepDoneMs }),
  cannot: {
    'two instances reserving one delivery at once store one job': ONE_PROCESS,
    'max_queue is never overshot by two instances adding at once': ONE_PROCESS,
    'a job whose worker died is recovered and counted; past MAX_RUNS starts it fails with one reason, unrun': ONE_PROCESS,
    'a job whose worker died goes before the jobs queued after it, and every start of its agent counts': ONE_PROCESS,
    'a try whose lease another worker took writes nothing more, and its confirmLease rejects': ONE_PROCESS,
  },
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
