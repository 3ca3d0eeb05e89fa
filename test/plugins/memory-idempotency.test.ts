import { describe, expect, it } from 'vitest'
import { randomUUID } from 'node:crypto'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { memoryIdempotencyStore } from '../../src/plugins/memory-idempotency/index.js'
import { idempotencyStoreContract } from '../contracts/idempotency-store.js'
import { fakeClock } from '../fixtures/clock.js'

idempotencyStoreContract('memoryIdempotencyStore', (now) => memoryIdempotencyStore({ now }))

describe('memoryIdempotencyStore', () => {
  const HOUR = 3_600_000

  it('forgets the oldest claim when full, and only that one', async () => {
    const store = memoryIdempotencyStore({ maxEntries: 3, now: fakeClock().now })
    for (const key of ['a', 'b', 'c', 'd']) expect(await store.claim(key, HOUR)).toBe(true)
    expect(await store.claim('a', HOUR)).toBe(true) // evicted to make room for d (and now evicts b)
    expect(await store.claim('c', HOUR)).toBe(false)
    expect(await store.claim('d', HOUR)).toBe(false)
  })

  it('treats a re-claim after expiry as the youngest entry', async () => {
    const clock = fakeClock()
    const store = memoryIdempotencyStore({ maxEntries: 2, now: clock.now })
    await store.claim('a', 1_000)
    await store.claim('b', HOUR)
    clock.advance(1_000)
    expect(await store.claim('a', HOUR)).toBe(true) // a moves behind b
    expect(await store.claim('c', HOUR)).toBe(true) // so b is the one evicted
    expect(await store.claim('a', HOUR)).toBe(false)
    expect(await store.claim('b', HOUR)).toBe(true)
  })

  it('holds 100,000 delivery ids in well under 50 MB of heap', async () => {
    // A real collection before each reading, so the figure is what the store retains, not garbage.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const store = memoryIdempotencyStore()
    gc()
    const before = process.memoryUsage().heapUsed
    for (let i = 0; i < 100_000; i++) await store.claim(`github-pr-review:${randomUUID()}`, HOUR)
    gc()
    const grown = process.memoryUsage().heapUsed - before
    expect(grown).toBeLessThan(25 * 1024 * 1024)
    // Still all remembered: none was evicted at the default bound.
    expect(await store.claim('github-pr-review:x', HOUR)).toBe(true)
  })

  it('stays bounded under a stream of unique ids', async () => {
    const clock = fakeClock()
    const store = memoryIdempotencyStore({ maxEntries: 1_000, now: clock.now })
    for (let i = 0; i < 5_000; i++) await store.claim(`id-${i}`, HOUR)
    // The 1,000 youngest are remembered, the older ones forgotten.
    expect(await store.claim('id-4999', HOUR)).toBe(false)
    expect(await store.claim('id-4001', HOUR)).toBe(false)
    expect(await store.claim('id-3999', HOUR)).toBe(true)
  })
})
