/**
 * The Redis backend through outages of a real `redis-server` of this file's own (issue 25, items 13, 16 and 8):
 * a command that ran after its request gave up, a Redis full to `maxmemory`, and what the log says of it all.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { StateBackend } from '../../src/core/jobs/state-backend.js'
import { keysOf } from '../../src/plugins/state/redis/keys.js'
import { redisState, type RedisStateOptions } from '../../src/plugins/state/redis/redis-state.js'
import { recordingLogger, type RecordingLogger } from '../../src/testing/context.js'
import { newJob } from '../../src/testing/state-backend.js'
import { startRedis, type TestRedis } from '../fixtures/redis.js'

let redis: TestRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

const opened: StateBackend[] = []
afterEach(async () => {
  for (const state of opened.splice(0)) {
    await state.queue.stop(0)
    await state.close?.()
  }
})

let prefixes = 0
async function backend(on: TestRedis, extra: Partial<RedisStateOptions> = {}): Promise<{ state: StateBackend; log: RecordingLogger; prefix: string }> {
  const prefix = `outage${++prefixes}`
  const { state } = redisState({ url: on.url, prefix, concurrency: 2, maxQueue: 100, lockMs: 2_000, ...extra })
  const log = recordingLogger()
  await state.start?.({ log })
  opened.push(state)
  return { state, log, prefix }
}

describe('redisState: a command that ran after its request gave up', () => {
  it('a de-dup key bound by an admission whose request was answered 503 (its script ran late) does not make the next copy a duplicate', async () => {
    const { state, prefix } = await backend(redis)
    const keys = keysOf(prefix)
    // What the admission script leaves when Redis ran it after the request's command timeout: the key bound to an
    // id on its way, and no job of that id ever stored.
    await redis.client.set(keys.keyOwner('pr\u0000late'), 'j99-late')
    await redis.client.zadd(keys.admitting, Date.now(), 'j99-late')
    const started = performance.now()
    const added = await state.queue.add(newJob('late'), await state.dedup.reserve('pr\u0000late'))
    expect(added).toMatchObject({ status: 'accepted' })
    expect(performance.now() - started).toBeLessThan(3_000) // within GitHub's 10 s, whatever the machine
    expect(await redis.client.zscore(keys.admitting, 'j99-late')).toBeNull()
    // A copy of it now is the duplicate of the job stored.
    const copy = await state.queue.add(newJob('late'), await state.dedup.reserve('pr\u0000late'))
    expect(copy).toEqual({ status: 'duplicate', id: added.status === 'accepted' ? added.id : '' })
  })
})
