/**
 * The Redis backend counts a new delivery's rate-limit hit in the same script that takes its key's hold (one
 * round trip less per accepted request), and only then: a duplicate, a redelivery or a gateway whose limiter is
 * another one is not counted there.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { LimitAsk, Reservation } from '../../src/core/jobs/lifecycle/state-backend.js'
import type { RateLimiter } from '../../src/core/types.js'
import { keysOf } from '../../src/plugins/state/redis/keys.js'
import { redisState } from '../../src/plugins/state/redis/redis-state.js'
import { recordingLogger } from '../../src/testing/context.js'
import { newJob } from '../../src/testing/state-backend.js'
import { useRedis } from '../fixtures/redis.js'

const redis = useRedis()
let counter = 0
const close: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const done of close.splice(0)) await done()
})

async function started() {
  const prefix = `hold-limit-${++counter}`
  const { state, rateLimiter } = redisState({ url: redis.url, prefix, concurrency: 1, maxQueue: 100 })
  await state.start?.({ log: recordingLogger() })
  close.push(() => state.close?.())
  const entries = () => redis.client.zcard(keysOf(prefix).rate('pr'))
  return { state, rateLimiter, entries }
}

const limitOf = (reservation: Reservation) => (reservation.status === 'new' ? reservation.limit : undefined)

describe('redisState: the rate limit counted with the de-dup hold', () => {
  it('counts a new delivery\'s hit with its hold; a duplicate is answered without counting one', async () => {
    const { state, rateLimiter, entries } = await started()
    const ask: LimitAsk = { limiter: rateLimiter, key: 'pr', limit: 2, mode: 'hit' }

    const first = await state.dedup.reserve('pr\u0000a', ask)
    expect(first.status).toBe('new')
    expect(limitOf(first)).toEqual({ hit: { ok: true } })
    expect(await state.queue.add(newJob('a'), first)).toMatchObject({ status: 'accepted' })
    expect(await entries()).toBe(1)

    // Copies of the stored delivery: duplicates, and the limit's log unchanged.
    for (let i = 0; i < 3; i++) expect((await state.dedup.reserve('pr\u0000a', ask)).status).toBe('duplicate')
    expect(await entries()).toBe(1)

    const second = await state.dedup.reserve('pr\u0000b', ask)
    expect(limitOf(second)).toEqual({ hit: { ok: true } })
    expect(await state.queue.add(newJob('b'), second)).toMatchObject({ status: 'accepted' })
    const third = await state.dedup.reserve('pr\u0000c', ask)
    const refused = limitOf(third)
    expect(refused && 'hit' in refused && !refused.hit.ok && refused.hit.retryAfterSeconds).toBeGreaterThanOrEqual(1)
    if (third.status === 'new') third.release()
    expect(await entries()).toBe(2)
  })

  it('a limiter that is not its own is left to the gateway: nothing counted, no answer', async () => {
    const { state, entries } = await started()
    const foreign: RateLimiter = { hit: () => ({ ok: true }) }
    const reservation = await state.dedup.reserve('pr\u0000x', { limiter: foreign, key: 'pr', limit: 2, mode: 'hit' })
    expect(reservation.status).toBe('new')
    expect(limitOf(reservation)).toBeUndefined()
    expect(await entries()).toBe(0)
  })

  it('a redelivery of a failed job takes its hold without counting: the gateway asks the limiter after', async () => {
    const { state, rateLimiter, entries } = await started()
    const ask: LimitAsk = { limiter: rateLimiter, key: 'pr', limit: 5, mode: 'hit' }
    const reservation = await state.dedup.reserve('pr\u0000f', ask)
    expect(await state.queue.add(newJob('f'), reservation)).toMatchObject({ status: 'accepted' })
    // Fail it: lease it and answer it failed, as a worker would.
    const failed = new Promise<void>((resolve) => {
      state.queue.start(async () => {
        resolve()
        return { kind: 'failed', reason: 'the agent exited 1' }
      })
    })
    await failed
    await state.queue.stop(1_000)
    await expect.poll(async () => (await state.jobs.counts()).failed).toBe(1)
    const again = await state.dedup.reserve('pr\u0000f', ask)
    expect(again.status).toBe('redeliver')
    expect(await entries()).toBe(1) // the first delivery's hit only
    if (again.status !== 'duplicate') again.release()
  })

  it('books a deferred route\'s moment with the hold; giving the booking back removes it', async () => {
    const { state, rateLimiter, entries } = await started()
    const ask: LimitAsk = { limiter: rateLimiter, key: 'pr', limit: 1, mode: 'book' }
    const now = limitOf(await state.dedup.reserve('pr\u0000d1', ask))
    expect(now && 'booked' in now && now.booked.waitMs).toBe(0)
    const later = limitOf(await state.dedup.reserve('pr\u0000d2', ask))
    expect(later && 'booked' in later && later.booked.waitMs).toBeGreaterThan(50_000) // the next free moment, about a minute on
    expect(await entries()).toBe(2)
    if (later && 'booked' in later) await later.booked.release()
    expect(await entries()).toBe(1)
  })
})
