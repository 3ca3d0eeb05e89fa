/**
 * Issue 19 on several instances, on Redis: two `hookpilot serve` processes on one real `redis-server` (this file's
 * own) review one pull request's pushes once, at its newest head (the scenario: test/fixtures/two-instance-reviews.ts).
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, it } from 'vitest'
import { startRedis, type TestRedis } from '../fixtures/redis.js'
import { reviewNewestHeadOnTwoInstances } from '../fixtures/two-instance-reviews.js'

let redis: TestRedis
beforeAll(async () => {
  redis = await startRedis()
}, 30_000)
afterAll(async () => {
  await redis?.stop()
})

it('two instances receiving one pull request\'s pushes alternately post one review, of the newest head; redeliveries post nothing', async () => {
  // A short lock, so a superseded run's group is handed on within the test's time.
  await reviewNewestHeadOnTwoInstances(`  driver: redis\n  url: ${JSON.stringify(redis.url)}\n  prefix: rv-${randomUUID().slice(0, 8)}\n  lock_seconds: 2`)
}, 90_000)
