/**
 * Issue 19 on several instances, on PostgreSQL (issue 36): two `hookpilot serve` processes on one real PostgreSQL
 * (this test's own cluster) review one pull request's pushes once, at its newest head (the scenario, shared with
 * the Redis test: test/fixtures/two-instance-reviews.ts).
 */
import { afterEach, it } from 'vitest'
import { startPostgres, type TestPostgres } from '../fixtures/postgres.js'
import { reviewNewestHeadOnTwoInstances } from '../fixtures/two-instance-reviews.js'

let server: TestPostgres | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

it('two instances receiving one pull request\'s pushes alternately post one review, of the newest head; redeliveries post nothing', async () => {
  server = await startPostgres()
  // A short lease, so a superseded run's group is handed on within the test's time.
  await reviewNewestHeadOnTwoInstances(`  driver: postgres\n  url: ${JSON.stringify(server.url)}\n  schema: reviews\n  lease_seconds: 2`)
}, 90_000)
