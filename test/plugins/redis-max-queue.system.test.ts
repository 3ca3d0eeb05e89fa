/**
 * `agent.max_queue` over two gateways on one Redis (issue 24): the room check and the write that queues a job are
 * one Lua script (admission.ts), so two instances hammered at once never queue more than max_queue jobs between
 * them, and every request past it is answered `503 Queue full` with `Retry-After`, as docs/configuration.md says.
 * Real HTTP servers, a real redis-server of this file's own.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keysOf } from '../../src/plugins/state/redis/keys.js'
import { redisState } from '../../src/plugins/state/redis/redis-state.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'
import { SECRET, testGateway, type TestGateway } from '../fixtures/gateway.js'
import { startRedis, type TestRedis } from '../fixtures/redis.js'

let redis: TestRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

const MAX_QUEUE = 10
const REQUESTS = 120

describe('redisState: max_queue across instances', () => {
  it('two gateways hammered at once queue at most max_queue jobs between them; the rest are answered 503 Queue full with Retry-After', async () => {
    const prefix = `maxq-${randomUUID().slice(0, 8)}`
    let letGo!: () => void
    const held = new Promise<void>((resolve) => (letGo = resolve))
    // Each instance runs one agent that holds its job until the test ends: what waits is what is queued.
    const instance = () => testGateway({
      state: (now) => redisState({ url: redis.url, prefix, concurrency: 1, maxQueue: MAX_QUEUE, now }).state,
      agent: async () => {
        await held
        return { ok: true, text: 'done' }
      },
      extra: { shutdown_grace_seconds: 0, rate_limit: 1_000_000 },
    })
    const gateways: TestGateway[] = [await instance(), await instance()]
    const ports = await Promise.all(gateways.map(async (g) => (await g.gateway.listen({ host: '127.0.0.1', port: 0 })).port))
    const bull = (name: string) => keysOf(prefix).bull(name)
    /** Jobs waiting, as Redis holds them: BullMQ's waiting, paused, delayed and prioritized lists. */
    const queued = async () => {
      const [wait, paused, delayed, prioritized] = await Promise.all([
        redis.client.llen(bull('wait')), redis.client.llen(bull('paused')), redis.client.zcard(bull('delayed')), redis.client.zcard(bull('prioritized')),
      ])
      return wait + paused + delayed + prioritized
    }
    try {
      // Watch the queue from outside for as long as the requests run.
      let most = 0
      let watching = true
      const watch = (async () => {
        while (watching) most = Math.max(most, await queued())
      })()
      const body = githubPayload('pull_request', 'opened')
      const answers = await Promise.all(Array.from({ length: REQUESTS }, async (_, i) => {
        const res = await fetch(`http://127.0.0.1:${ports[i % 2]}/webhooks/pr`, { method: 'POST', headers: githubHeaders('pull_request', body, SECRET), body })
        return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> }
      }))
      watching = false
      await watch

      const accepted = answers.filter((a) => a.status === 202)
      const refused = answers.filter((a) => a.status !== 202)
      const running = await redis.client.llen(bull('active'))
      expect(most).toBeLessThanOrEqual(MAX_QUEUE)
      expect(await queued()).toBe(MAX_QUEUE)
      // Every 202 is a job stored: queued, or taken by one of the two agents (one each).
      expect(running).toBeLessThanOrEqual(2)
      expect(accepted).toHaveLength(MAX_QUEUE + running)
      for (const answer of refused) expect(answer).toEqual({ status: 503, retryAfter: '30', body: { error: 'Queue full' } })
      expect(refused.length).toBe(REQUESTS - accepted.length)
    } finally {
      letGo()
      for (const g of gateways) await g.gateway.close()
    }
  }, 60_000)
})
