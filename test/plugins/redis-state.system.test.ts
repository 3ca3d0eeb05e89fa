import { describe, expect, it } from 'vitest'
import type { JobOutcome, LeasedJob, StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
import { redisState, type RedisStateOptions } from '../../src/plugins/state/redis/redis-state.js'
import { newJob, stateBackendContract, type BackendOptions } from '../../src/testing/state-backend.js'
import { recordingLogger } from '../../src/testing/context.js'
import { keysOf } from '../../src/plugins/state/redis/keys.js'
import { redisLimiter } from '../../src/plugins/state/redis/limiter.js'
import { NOTE_EXPIRY_SLACK_MS } from '../../src/plugins/state/redis/redis-notes.js'
import { startRedis, useRedis } from '../fixtures/redis.js'

const redis = useRedis()

let counter = 0
const prefixes = new WeakMap<StateBackend, string>()
const backendAt = (prefix: string, options: BackendOptions, extra: Partial<RedisStateOptions> = {}) => {
  const { state } = redisState({
    url: redis.url, prefix, concurrency: options.concurrency, maxQueue: options.maxQueue, now: options.now, dedupWindowMs: options.dedupWindowMs,
    keepDoneMs: options.keepDoneMs, ...extra,
  })
  prefixes.set(state, prefix)
  return state
}

stateBackendContract('redisState', {
  make: (options) => backendAt(`contract${++counter}`, options),
  reopen: (previous, options) => backendAt(prefixes.get(previous) ?? '', options),
  peer: (first, options) => backendAt(prefixes.get(first) ?? '', options),
  // BullMQ promotes a delayed job on the machine's clock: the suite waits a few hundred milliseconds for it.
  clock: 'machine',
  // A live instance in this process keeps renewing its BullMQ lock, so its jobs are never taken over;
  // test/e2e/redis-instances.system.test.ts kills a real instance and checks the takeover.
  takeover: false,
})

describe('redisState: startup', () => {
  it('an unreachable Redis stops the start naming state.url, without its password', async () => {
    const { state } = redisState({ url: 'redis://:s3cret-pass@127.0.0.1:1', concurrency: 1, maxQueue: 10 })
    const error = await state.start?.({ log: recordingLogger() }).then(() => undefined, (err: unknown) => err)
    expect(String(error)).toMatch(/Cannot reach Redis at state\.url \(redis:\/\/:\*\*\*@127\.0\.0\.1:1\): .*ECONNREFUSED/)
    expect(String(error)).not.toContain('s3cret-pass')
  })

  it('warns when Redis may evict keys or keeps no append-only file', async () => {
    const loose = await startRedis({ args: ['--maxmemory-policy', 'allkeys-lru', '--appendonly', 'no'] })
    try {
      const log = recordingLogger()
      const { state } = redisState({ url: loose.url, concurrency: 1, maxQueue: 10 })
      await state.start?.({ log })
      await state.close?.()
      const warnings = log.lines.filter((l) => l.level === 'warn').map((l) => l.message).join('\n')
      expect(warnings).toMatch(/maxmemory-policy is allkeys-lru.*Set maxmemory-policy noeviction/)
      expect(warnings).toMatch(/appendonly is off/)
    } finally {
      await loose.stop()
    }
  })

  it('no warning for a Redis set as docs/scaling.md says', async () => {
    const log = recordingLogger()
    const { state } = redisState({ url: redis.url, prefix: 'quiet', concurrency: 1, maxQueue: 10 })
    await state.start?.({ log })
    await state.close?.()
    expect(log.lines.filter((l) => l.level === 'warn')).toEqual([])
  })
})

describe('redisState: the shared rate limiter (Redis time, so real waits over a short window)', () => {
  const limiterOn = async (prefix: string, windowMs?: number) => {
    const made = redisState({ url: redis.url, prefix, concurrency: 1, maxQueue: 10 })
    await made.state.start?.({ log: recordingLogger() })
    const limiter = windowMs === undefined ? made.rateLimiter : redisLimiter(() => redis.client, keysOf(prefix), windowMs)
    return { limiter, close: () => made.state.close?.() }
  }

  it('of 20 concurrent hits from two instances on a limit of 5, exactly 5 pass; the rest get a Retry-After within the minute', async () => {
    const a = await limiterOn('shared-limit')
    const b = await limiterOn('shared-limit')
    try {
      const decisions = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).limiter.hit('pr', 5)))
      expect(decisions.filter((d) => d.ok)).toHaveLength(5)
      for (const d of decisions.filter((d) => !d.ok)) {
        expect(d).toMatchObject({ ok: false, retryAfterSeconds: expect.any(Number) })
        if (!d.ok) expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(59)
      }
      expect((await a.limiter.hit('other-route', 5)).ok).toBe(true) // keys are counted apart
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('books deferred hits from two instances at the moments the limit frees: at most the limit in any window', async () => {
    const a = await limiterOn('shared-book')
    const b = await limiterOn('shared-book')
    try {
      const started = Date.now()
      const bookings = await Promise.all(Array.from({ length: 15 }, (_, i) => (i % 2 ? a : b).limiter.book?.('pr', 3)))
      // One millisecond more: Redis' clock and Date.now() tick over at different moments, so both readings of the
      // same span can differ by one (a last wait of 239,999 ms with 1 ms elapsed).
      const elapsed = Date.now() - started + 1
      const waits = bookings.map((booking) => booking?.waitMs ?? -1).sort((x, y) => x - y)
      expect(waits.slice(0, 3)).toEqual([0, 0, 0])
      // Each wait is from Redis' own now, which moved by at most `elapsed` over the calls.
      for (let i = 3; i < waits.length; i++) expect((waits[i] ?? 0) - (waits[i - 3] ?? 0)).toBeGreaterThanOrEqual(60_000 - elapsed)
      expect(waits.at(-1)).toBeGreaterThanOrEqual(4 * 60_000 - elapsed)
      expect(await a.limiter.hit('pr', 3)).toMatchObject({ ok: false, retryAfterSeconds: 300 }) // after the last booked
      const last = bookings.find((booking) => booking?.waitMs === waits.at(-1))
      await last?.release() // given back: a hit waits for the one before it
      expect(await a.limiter.hit('pr', 3)).toMatchObject({ ok: false, retryAfterSeconds: 240 })
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('rolls: a hit leaves the window once the window has passed since it was made', async () => {
    // Timers wait at least as long as asked, so "has left" holds on any machine; "has not left yet" keeps more
    // than a second of slack for a loaded one (a 2.2 s window, hits 1.2 s apart, the check 1.05 s after the second).
    const { limiter, close } = await limiterOn('rolling', 2_200)
    try {
      expect((await limiter.hit('pr', 2)).ok).toBe(true)
      await new Promise((resolve) => setTimeout(resolve, 1_200))
      expect((await limiter.hit('pr', 2)).ok).toBe(true)
      expect(await limiter.hit('pr', 2)).toEqual({ ok: false, retryAfterSeconds: 1 }) // the first leaves within 1 s
      await new Promise((resolve) => setTimeout(resolve, 1_050)) // the first hit has left, the second has not
      expect((await limiter.hit('pr', 2)).ok).toBe(true)
      expect((await limiter.hit('pr', 2)).ok).toBe(false)
    } finally {
      await close()
    }
  })
})

describe('redisState: a retry waits for its time (BullMQ\'s delay, on the machine\'s clock)', () => {
  it('a deferred job (runAt, the moment its rate limit booked) is held until then, with or without a group', async () => {
    const { state } = redisState({ url: redis.url, prefix: 'deferred', concurrency: 2, maxQueue: 10 })
    await state.start?.({ log: recordingLogger() })
    try {
      const runAt = Date.now() + 700
      const group = { key: 'pr\u0000o/r#1', debounceMs: 0, maxWaitMs: 0 }
      await state.queue.add({ ...newJob('deferred'), runAt })
      await state.queue.add({ ...newJob('grouped'), runAt, group })
      const leases: Array<{ id: string; at: number; notBefore: number }> = []
      state.queue.start(async (job) => {
        leases.push({ id: job.job.deliveryId, at: Date.now(), notBefore: job.job.notBefore })
        return { kind: 'done' }
      })
      await expect.poll(() => leases.length, { timeout: 5_000 }).toBe(2)
      for (const lease of leases) expect(lease).toMatchObject({ at: expect.toSatisfy((at: number) => at >= runAt), notBefore: runAt })
    } finally {
      await state.queue.stop(0)
      await state.close?.()
    }
  })

  it('a redelivery of a failed job over the rate limit (runAt) runs it again at its booked moment, not before', async () => {
    const { state } = redisState({ url: redis.url, prefix: 'redeferred', concurrency: 1, maxQueue: 10 })
    await state.start?.({ log: recordingLogger() })
    try {
      const added = await state.queue.add(newJob('again'), await state.dedup.reserve('pr\u0000again'))
      const leases: Array<{ at: number; notBefore: number }> = []
      state.queue.start(async (job) => {
        leases.push({ at: Date.now(), notBefore: job.job.notBefore })
        return leases.length === 1 ? { kind: 'failed', reason: 'exit 1' } : { kind: 'done' }
      })
      const id = added.status === 'accepted' ? added.id : ''
      await expect.poll(async () => (await state.jobs.get(id))?.state, { timeout: 5_000 }).toBe('failed')
      const runAt = Date.now() + 700
      expect(await state.queue.add({ ...newJob('again'), runAt }, await state.dedup.reserve('pr\u0000again'))).toEqual({ status: 'accepted', id })
      await expect.poll(async () => (await state.jobs.get(id))?.state, { timeout: 5_000 }).toBe('done')
      expect(leases).toHaveLength(2)
      expect(leases[1]).toMatchObject({ at: expect.toSatisfy((at: number) => at >= runAt), notBefore: runAt })
    } finally {
      await state.queue.stop(0)
      await state.close?.()
    }
  })

  it('a job answered retry is held until its time, then leased again with the answer and progress it saved', async () => {
    const { state } = redisState({ url: redis.url, prefix: 'delayed', concurrency: 1, maxQueue: 10 })
    await state.start?.({ log: recordingLogger() })
    try {
      await state.queue.add(newJob('later'))
      const leases: Array<{ at: number; stage: string; progress: number }> = []
      let due = 0
      state.queue.start(async (job) => {
        leases.push({ at: Date.now(), stage: job.job.stage, progress: job.job.progress })
        if (leases.length > 1) return { kind: 'done' }
        await job.saveAnswer('stored')
        await job.saveProgress(2)
        due = Date.now() + 700
        return { kind: 'retry', at: due, reason: 'HTTP 503' }
      })
      await expect.poll(() => leases.length, { timeout: 5_000 }).toBe(2)
      expect(leases[1]?.at).toBeGreaterThanOrEqual(due)
      expect(leases[1]).toMatchObject({ stage: 'deliver', progress: 2 })
    } finally {
      await state.queue.stop(0)
      await state.close?.()
    }
  })
})

describe('redisState: the mark of a newer job of the group is a field of its own', () => {
  it('a queued job marked by an earlier version (the mark inside its data) still ends superseded, unrun, and the mark moves to its field', async () => {
    const { state } = redisState({ url: redis.url, prefix: 'legacy-mark', concurrency: 1, maxQueue: 10 })
    await state.start?.({ log: recordingLogger() })
    try {
      const group = { key: 'pr\u0000o/r#7', debounceMs: 0, maxWaitMs: 0 }
      const added = await state.queue.add({ ...newJob('old-mark'), group })
      const id = added.status === 'accepted' ? added.id : ''
      const key = `legacy-mark:jobs:${id}`
      const data = JSON.parse((await redis.client.hget(key, 'data')) ?? '{}') as Record<string, unknown>
      expect(data).not.toHaveProperty('supersededBy')
      await redis.client.hset(key, 'data', JSON.stringify({ ...data, supersededBy: 'j99-old' }))
      const ran: string[] = []
      state.queue.start(async (job) => (ran.push(job.job.id), { kind: 'done' }))
      await expect.poll(async () => (await state.jobs.get(id))?.state, { timeout: 5_000 }).toBe('superseded')
      expect(await state.jobs.get(id)).toMatchObject({ supersededBy: 'j99-old' })
      expect(ran).toEqual([])
      expect(await redis.client.hget(key, 'supersededBy')).toBe('j99-old')
      expect(JSON.parse((await redis.client.hget(key, 'data')) ?? '{}')).not.toHaveProperty('supersededBy')
    } finally {
      await state.queue.stop(0)
      await state.close?.()
    }
  })
})

describe('redisState: a try writes only under its lock', () => {
  const parked = (job: LeasedJob) =>
    new Promise<JobOutcome>((resolve) => job.signal.addEventListener('abort', () => resolve({ kind: 'interrupted' }), { once: true }))

  it('once the lock is another worker\'s, confirmLease and saveAnswer reject, the try is aborted, and the job keeps the other\'s data', async () => {
    const { state } = redisState({ url: redis.url, prefix: 'fenced', concurrency: 1, maxQueue: 10 })
    await state.start?.({ log: recordingLogger() })
    try {
      const added = await state.queue.add(newJob('fenced'), await state.dedup.reserve('pr\u0000fenced'))
      const id = added.status === 'accepted' ? added.id : ''
      let first: LeasedJob | undefined
      state.queue.start(async (job) => ((first = job), parked(job)))
      await expect.poll(() => first).toBeDefined()
      await first?.saveAnswer('while it held the lock')
      // What an expired lock taken by another instance looks like: the lock names another token.
      await redis.client.set(`fenced:jobs:${id}:lock`, 'another-worker')
      await expect(first?.confirmLease()).rejects.toThrow(/lease on job .* was lost/)
      await expect(first?.saveAnswer('after it lost the lock')).rejects.toThrow(/lease on job .* was lost/)
      expect(first?.signal.aborted).toBe(true)
      expect((await state.jobs.get(id))?.answer).toBe('while it held the lock')
    } finally {
      await state.queue.stop(0)
      await state.close?.()
    }
  })

  it('job ids never repeat after Redis lost its data (an old try cannot write to a new job of the same number)', async () => {
    const make = () => redisState({ url: redis.url, prefix: 'epoch', concurrency: 1, maxQueue: 10 }).state
    const before = make()
    await before.start?.({ log: recordingLogger() })
    const first = await before.queue.add(newJob('e1'))
    await before.close?.()
    for (const key of await redis.client.keys('epoch:*')) await redis.client.del(key)
    const after = make()
    await after.start?.({ log: recordingLogger() })
    const second = await after.queue.add(newJob('e1'))
    await after.close?.()
    expect(first).toMatchObject({ status: 'accepted', id: expect.stringMatching(/^j1-/) })
    expect(second).toMatchObject({ status: 'accepted', id: expect.stringMatching(/^j1-/) })
    expect(second).not.toEqual(first)
  })
})

describe('redisState: notes leave Redis after they expire', () => {
  it('a note with a time to live gets a Redis expiry an hour past it; one without keeps none', async () => {
    const { state } = redisState({ url: redis.url, prefix: 'note-ttl', concurrency: 1, maxQueue: 10 })
    await state.start?.({ log: recordingLogger() })
    try {
      const key = keysOf('note-ttl').note('budget/day')
      expect(await state.notes?.put('budget/day', 5, 0, { ttlMs: 60_000 })).toBe(1)
      const ttl = await redis.client.pttl(key)
      expect(ttl).toBeGreaterThan(60_000)
      expect(ttl).toBeLessThanOrEqual(60_000 + NOTE_EXPIRY_SLACK_MS)
      expect(await state.notes?.put('budget/day', 6, 1)).toBe(2) // written again without one: kept
      expect(await redis.client.pttl(key)).toBe(-1)
      expect(await state.notes?.put('budget/day', null, 2)).toBe(3)
      expect(await redis.client.exists(key)).toBe(0)
    } finally {
      await state.close?.()
    }
  })
})
