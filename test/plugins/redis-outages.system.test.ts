/**
 * The Redis backend through outages of a real `redis-server` of this file's own (issue 25, items 13, 16 and 8):
 * a command that ran after its request gave up, a Redis full to `maxmemory`, and what the log says of it all.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
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

describe('redisState: a Redis full to maxmemory (noeviction) fails no job it accepted', () => {
  let full: TestRedis
  beforeAll(async () => {
    full = await startRedis({ args: ['--maxmemory', '64mb'] })
  })
  afterAll(async () => {
    await full?.stop()
  })

  /**
   * Fills Redis past its `maxmemory`; resolves the filler keys. Values written until one is refused leave Redis
   * just under its limit, where small writes still pass; lowering the limit below what it holds is the full Redis
   * of a real outage, which refuses every write that may grow it.
   */
  async function fill(): Promise<string[]> {
    const filler = Array.from({ length: 32 }, (_, i) => `filler:${i}`)
    for (const key of filler) await full.client.set(key, 'x'.repeat(65_536))
    const used = Number(/used_memory:(\d+)/.exec(await full.client.info('memory'))?.[1])
    await full.client.config('SET', 'maxmemory', String(used - 262_144))
    await expect(full.client.set('one-more', 'x')).rejects.toThrow(/OOM/)
    return filler
  }

  it('jobs running and queued when Redis fills up are tried again later, none fails; given room, they finish by themselves', async () => {
    const { state, prefix, log } = await backend(full)
    const ids = ['full1', 'full2', 'full3', 'full4', 'full5', 'full6']
    for (const id of ids) expect(await state.queue.add(newJob(id), await state.dedup.reserve(`pr\u0000${id}`))).toMatchObject({ status: 'accepted' })
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    const runs = new Map<string, number>()
    state.queue.start(async (job) => {
      runs.set(job.job.deliveryId, (runs.get(job.job.deliveryId) ?? 0) + 1)
      await gate // the first two hold their lease while Redis fills up
      await job.saveAnswer(`answer to ${job.job.deliveryId}`)
      return { kind: 'done' }
    })
    await expect.poll(() => runs.size).toBe(2)
    const filler = await fill()
    open() // the two running ones now store their answers into a full Redis, and the next ones are leased
    // Before the fix, every job was failed with Redis's OOM error within a second; now each goes back to the queue.
    const delayed = () => full.client.zcard(`${prefix}:jobs:delayed`)
    await expect.poll(async () => (await state.jobs.counts()).failed > 0 || (await delayed()) >= 2, { timeout: 15_000 }).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 1_500)) // a retry's first backoff passes while Redis is still full
    expect(await state.jobs.counts()).toEqual({ queued: 6, running: 0, done: 0, failed: 0, skipped: 0, superseded: 0 })

    await full.client.del(...filler)
    await expect.poll(() => state.jobs.counts(), { timeout: 45_000 }).toEqual({ queued: 0, running: 0, done: 6, failed: 0, skipped: 0, superseded: 0 })
    const jobs = await state.jobs.list()
    for (const id of ids) expect(jobs.find((j) => j.deliveryId === id)).toMatchObject({ state: 'done', answer: `answer to ${id}` })
    // Said once, in the gateway's words, and its end once (item 8).
    const said = log.lines.filter((l) => /^Redis at /.test(l.message)).map((l) => `${l.level} ${l.message}`)
    expect(said).toEqual([
      expect.stringMatching(/^error Redis at .* is full \(its memory is over maxmemory\): it refuses writes until it has room: no job is taken or finished/),
      expect.stringMatching(/^info Redis at .* answers again after \d+ s: running jobs again$/),
    ])
    expect(log.text()).not.toMatch(/OOM command not allowed/)
  }, 90_000)
})

describe('redisState: a try Redis refused a write of, as the pool does (the kit\'s storeTrouble)', () => {
  it('goes back to the queue with its try not counted, whatever the worker answered, and runs again once Redis has room', async () => {
    const own = await startRedis()
    const { state } = await backend(own)
    try {
      const added = await state.queue.add(newJob('refused'), await state.dedup.reserve('pr\u0000refused'))
      const id = added.status === 'accepted' ? added.id : ''
      const tries: number[] = []
      state.queue.start(async (job) => {
        tries.push(job.job.attempts)
        if (tries.length > 1) return { kind: 'done' }
        await own.client.config('SET', 'maxmemory', '1') // full: every write that may grow Redis is refused
        const refused = await job.saveProgress(1).then(() => false, () => true)
        await own.client.config('SET', 'maxmemory', '0')
        return { kind: 'failed', reason: refused ? 'the store refused the progress' : 'not refused' }
      })
      await expect.poll(async () => (await state.jobs.get(id))?.state, { timeout: 20_000 }).toBe('done')
      // The first try was the store's failure: not held against the job (its second lease counts one try, again).
      expect(tries).toEqual([1, 1])
      expect(await state.jobs.get(id)).toMatchObject({ state: 'done', lastError: undefined })
    } finally {
      await state.queue.stop(0)
      await state.close?.()
      await own.stop()
    }
  }, 30_000)
})

describe('redisState: an outage is reported in the gateway\'s words, once, and its end once', () => {
  it('Redis killed: one line for webhooks and one for jobs saying what the gateway does; the requests fail in the same words; one line each when it is back', async () => {
    const own = await startRedis()
    try {
      const { state, log } = await backend(own, { commandTimeoutMs: 1_000 })
      state.queue.start(async () => ({ kind: 'done' }))
      await own.kill()
      const errors: unknown[] = []
      for (let i = 0; i < 5; i++) errors.push(await state.dedup.reserve(`pr\u0000down-${i}`).then(() => undefined, (err: unknown) => err))
      for (const err of errors) expect(String(err)).toMatch(/^GatewayError: Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable \(/)
      await expect.poll(() => log.lines.filter((l) => l.level === 'error').length).toBe(2)
      const down = log.lines.filter((l) => l.level === 'error').map((l) => l.message).sort()
      expect(down[0]).toMatch(/^Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable \(.*\): no job is taken or finished until it answers again; a try it cannot store goes back to the queue and is tried again later, none fails for it$/)
      expect(down[1]).toMatch(/^Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable \(.*\): webhooks are answered 503 with Retry-After until it answers again/)
      expect(log.text()).not.toMatch(/ECONNREFUSED|Stream isn't writeable|enableOfflineQueue|Connection is closed/)

      await own.restart()
      await expect.poll(() => state.dedup.reserve('pr\u0000back').then(() => true, () => false), { timeout: 15_000 }).toBe(true)
      await expect.poll(() => log.lines.filter((l) => l.level === 'info').map((l) => l.message.replace(/after \d+ s/, 'after N s')).sort()).toEqual([
        expect.stringMatching(/^Redis at .* answers again after N s: accepting webhooks again$/),
        expect.stringMatching(/^Redis at .* answers again after N s: running jobs again$/),
      ])
      expect(log.lines.filter((l) => l.level === 'error')).toHaveLength(2) // once per outage, however many failed
    } finally {
      await own.stop()
    }
  }, 60_000)
})
