/**
 * The contract every {@link IdempotencyStore} honours, run by each implementation's own test file.
 */
import { describe, expect, it } from 'vitest'
import type { Clock, IdempotencyStore } from '../../src/core/types.js'
import { fakeClock } from '../fixtures/clock.js'

const HOUR = 3_600_000

/** Runs the idempotency-store contract against stores made by `make(clock)`, one per test. */
export function idempotencyStoreContract(name: string, make: (clock: Clock) => IdempotencyStore): void {
  describe(`${name} (IdempotencyStore contract)`, () => {
    const setup = () => {
      const clock = fakeClock()
      return { clock, store: make(clock.now) }
    }

    it('lets a key be claimed once', async () => {
      const { store } = setup()
      expect(await store.claim('route:delivery-1', HOUR)).toBe(true)
      expect(await store.claim('route:delivery-1', HOUR)).toBe(false)
      expect(await store.claim('route:delivery-1', HOUR)).toBe(false)
    })

    it('gives exactly one of 100 concurrent claims of a key', async () => {
      const { store } = setup()
      const results = await Promise.all(Array.from({ length: 100 }, () => store.claim('burst', HOUR)))
      expect(results.filter(Boolean)).toHaveLength(1)
    })

    it('lets a released key be claimed again, once', async () => {
      const { store } = setup()
      await store.claim('k', HOUR)
      await store.release('k')
      const results = await Promise.all([store.claim('k', HOUR), store.claim('k', HOUR)])
      expect(results.filter(Boolean)).toHaveLength(1)
    })

    it('releases an unknown key without error', async () => {
      const { store } = setup()
      await expect(store.release('never-claimed')).resolves.toBeUndefined()
      expect(await store.claim('never-claimed', HOUR)).toBe(true)
    })

    it('forgets a claim once its TTL has passed, not before', async () => {
      const { clock, store } = setup()
      await store.claim('k', HOUR)
      clock.advance(HOUR - 1)
      expect(await store.claim('k', HOUR)).toBe(false)
      clock.advance(1)
      expect(await store.claim('k', HOUR)).toBe(true)
      expect(await store.claim('k', HOUR)).toBe(false)
    })

    it('keeps each claim to its own TTL', async () => {
      const { clock, store } = setup()
      await store.claim('short', 1_000)
      await store.claim('long', HOUR)
      clock.advance(1_000)
      expect(await store.claim('short', HOUR)).toBe(true)
      expect(await store.claim('long', HOUR)).toBe(false)
    })

    it('keeps different keys independent', async () => {
      const { store } = setup()
      expect(await store.claim('a', HOUR)).toBe(true)
      expect(await store.claim('b', HOUR)).toBe(true)
      await store.release('a')
      expect(await store.claim('b', HOUR)).toBe(false)
      expect(await store.claim('a', HOUR)).toBe(true)
    })
  })
}
