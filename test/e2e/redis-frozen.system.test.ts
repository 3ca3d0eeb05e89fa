/**
 * Issue 25, item 13: a Redis that stops answering without closing its connections (SIGSTOP of the test's own
 * `redis-server`: what a frozen host or a network partition looks like to the gateway). Each webhook is
 * answered 503 with `Retry-After` within `state.command_timeout_seconds`, `/ready` answers 503 within a second,
 * `/health` still answers; once Redis goes on, a later delivery is 202 and runs, and nothing acknowledged is lost.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { RunningCli } from '../fixtures/cli.js'
import { durableSetup, redisStateYaml, SECRET, type Durable } from '../fixtures/durable.js'
import { startRedis, type TestRedis } from '../fixtures/redis.js'

let redis: TestRedis
beforeAll(async () => {
  redis = await startRedis()
}, 30_000)
afterAll(async () => {
  redis?.thaw()
  await redis?.stop()
})

const running: RunningCli[] = []
afterEach(() => {
  redis.thaw()
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL')
})

async function timed<T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await call()
  return { value, ms: performance.now() - started }
}

async function probe(port: number, path: '/health' | '/ready'): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`)
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

const posted = (world: Durable, pr: number) => world.posted().filter((p) => p === pr).length

describe('a frozen Redis (SIGSTOP): answered at once, never held', () => {
  it('a webhook is answered 503 with Retry-After within the command timeout, /ready 503 within a second; after SIGCONT a delivery is 202 and runs, and nothing acknowledged is lost', async () => {
    const prefix = `frozen-${randomUUID().slice(0, 8)}`
    const world = await durableSetup({ agentMs: 100, state: `${redisStateYaml(redis.url, prefix, 5)}\n  command_timeout_seconds: 2` })
    const serving = await world.serve()
    running.push(serving.cli)
    const { port } = serving
    const before = await Promise.all([1, 2, 3].map((pr) => world.send(port, pr, `frozen-${pr}`)))
    expect(before.map((a) => a.status)).toEqual([202, 202, 202])
    await expect.poll(() => [1, 2, 3].map((pr) => posted(world, pr)), { timeout: 20_000 }).toEqual([1, 1, 1])

    redis.freeze()
    const during = await timed(() => world.sendTo(port, 'pr', SECRET, 4, 'frozen-4'))
    expect(during.value).toMatchObject({ status: 503, body: { error: 'State store unavailable' } })
    expect(Number(during.value.retryAfter)).toBeGreaterThan(0)
    expect(during.ms).toBeLessThan(3_500) // 2 s of command timeout, and slack for a loaded machine; GitHub waits 10 s
    const ready = await timed(() => probe(port, '/ready'))
    expect(ready.value.status).toBe(503)
    expect(ready.ms).toBeLessThan(1_000)
    const health = await timed(() => probe(port, '/health'))
    expect(health.value.status).toBe(200) // liveness: the process answers; the reason says what is wrong
    expect(health.ms).toBeLessThan(1_000)

    redis.thaw()
    await expect.poll(async () => (await probe(port, '/ready')).status, { timeout: 15_000 }).toBe(200)
    expect((await world.send(port, 5, 'frozen-5')).status).toBe(202)
    // The refused one, sent again as a sender would: accepted now (its first try's hold on the delivery id, taken
    // when Redis went on, lapses within 5 s).
    expect((await world.send(port, 4, 'frozen-4')).status).toBe(202)
    await expect.poll(() => [1, 2, 3, 4, 5].map((pr) => posted(world, pr)), { timeout: 20_000 }).toEqual([1, 1, 1, 1, 1])
    // Said in the gateway's words, once, and its end once (item 8); never the client library's text.
    const output = serving.cli.output()
    expect(output.match(/Redis at \S+ does not answer \(no answer within 2 s\): webhooks are answered 503 with Retry-After/g)).toHaveLength(1)
    expect(output).toMatch(/Redis at \S+ answers again after \d+ s: accepting webhooks again/)
    expect(output).not.toMatch(/Command timed out/)
  }, 60_000)
})
