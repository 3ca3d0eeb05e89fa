/**
 * Outages longer than the old 15 s retry window (issue 25, item 7), through a whole gateway on a clock the test
 * moves: a delivery target down for ten minutes still gets the answer, once, and an agent that fails twice then
 * answers is delivered once. Each retry waits in the store as a queued job with its time, not in a worker.
 */
import { describe, expect, it } from 'vitest'
import { DeliveryError } from '../../src/core/errors.js'
import type { JobRecord } from '../../src/core/jobs/lifecycle/job-record.js'
import type { AgentAnswer } from '../../src/core/types.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'
import { SECRET, testGateway, type TestGateway } from '../fixtures/gateway.js'

const body = githubPayload('pull_request', 'opened')
const request = (id: string) => ({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET, id), body })

/** The only job, once it matches `ready`. */
async function jobWhen(t: TestGateway, ready: (job: JobRecord) => boolean): Promise<JobRecord> {
  let found: JobRecord | undefined
  await expect.poll(async () => {
    found = (await t.state.jobs.list())[0]
    return found !== undefined && ready(found)
  }, { timeout: 5_000, interval: 5 }).toBe(true)
  return found!
}

/** Moves the clock to each retry's time until the job ends; `tries` counts what the job tried so far. */
async function runToTheEnd(t: TestGateway, tries: () => number): Promise<JobRecord> {
  for (;;) {
    const job = await jobWhen(t, (j) => j.state !== 'running' && (j.state !== 'queued' || j.notBefore > t.clock.now()))
    if (job.state !== 'queued') return job
    const seen = tries()
    t.clock.advance(job.notBefore - t.clock.now())
    await expect.poll(tries, { timeout: 5_000, interval: 5 }).toBeGreaterThan(seen)
  }
}

describe('retries that outlast an outage', () => {
  it('a delivery target down for 10 minutes (the old schedule gave up after 15 s) still delivers, once', async () => {
    const delivered: AgentAnswer[] = []
    const tries: number[] = []
    let now = () => 0 // the gateway's clock, once it is built
    const target = {
      name: 'flaky',
      async deliver(answer: AgentAnswer) {
        tries.push(now())
        if (now() - (tries[0] ?? 0) < 10 * 60_000) throw new DeliveryError('flaky', 'HTTP 502 Bad Gateway', { retryable: true })
        delivered.push(answer)
      },
    }
    const t = await testGateway({ routes: { pr: { secret: SECRET, events: ['pull_request'], deliver: 'flaky' } }, plugins: [{ name: 'flaky', deliveryTargets: [target] }], pollMs: 5 })
    now = t.clock.now
    try {
      expect((await t.gateway.handle(request('outage-1'))).status).toBe(202)
      const job = await runToTheEnd(t, () => tries.length)
      expect(job).toMatchObject({ state: 'done', stage: 'deliver', lastError: 'flaky: HTTP 502 Bad Gateway' })
      expect(delivered).toHaveLength(1)
      expect(t.runs).toHaveLength(1) // the agent ran once: only the delivery was tried again
      // Waits of about 3, 6 and 12 minutes (±20 %): the 4th try comes after the 10 minutes, the old window's 5th after 15 s.
      expect(tries.length).toBeGreaterThanOrEqual(3)
      expect(tries.at(-1)! - tries[0]!).toBeGreaterThanOrEqual(10 * 60_000)
      expect(t.log.lines.filter((l) => l.message === 'delivery failed, retrying').length).toBe(tries.length - 1)
    } finally {
      await t.gateway.close()
    }
  })

  it('an agent that fails twice then answers is delivered once', async () => {
    let calls = 0
    const t = await testGateway({
      agent: () => (++calls <= 2 ? { ok: false, reason: 'exited with code 1: the model API is overloaded' } : { ok: true, text: 'the review' }),
      pollMs: 5,
    })
    try {
      expect((await t.gateway.handle(request('flaky-agent'))).status).toBe(202)
      const job = await runToTheEnd(t, () => t.runs.length)
      expect(job).toMatchObject({ state: 'done', answer: 'the review', lastError: 'exited with code 1: the model API is overloaded' })
      expect(t.runs).toHaveLength(3)
      expect(t.answers.map((a) => a.text)).toEqual(['the review'])
      expect(t.log.lines.filter((l) => l.message === 'agent run failed, retrying')).toHaveLength(2)
    } finally {
      await t.gateway.close()
    }
  })
})
