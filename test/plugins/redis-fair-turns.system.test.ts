/**
 * Fair turns on Redis beyond the shared contract (which runs the fairness cases on Redis too): a job's turn is
 * BullMQ's priority, taken in the admission's script from sets kept beside BullMQ's lists
 * (src/plugins/state/redis/turns.ts). What only Redis has to show: a try put back keeps its place among its
 * turn, two instances adding to one key take a turn each, the sets keep only unfinished jobs (and drop what an
 * admission left without a job), a delayed job keeps the turn it took when stored, and turns stop at BullMQ's
 * highest priority. (A job queued again taking a new turn is the shared contract's case.)
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { JobOutcome, LeasedJob, StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
import type { NewJob } from '../../src/core/jobs/lifecycle/job-record.js'
import { redisState } from '../../src/plugins/state/redis/redis-state.js'
import { keysOf } from '../../src/plugins/state/redis/keys.js'
import { MAX_TURN } from '../../src/plugins/state/redis/records.js'
import { newJob } from '../../src/testing/state-backend.js'
import { recordingLogger } from '../../src/testing/context.js'
import { useRedis } from '../fixtures/redis.js'

const redis = useRedis()

let counter = 0
const opened: StateBackend[] = []
afterEach(async () => {
  for (const state of opened.splice(0)) {
    await state.queue.stop(0)
    await state.close?.()
  }
})

/** A started Redis backend under `prefix` (a fresh one unless given). */
async function backend(prefix = `fair${++counter}`, concurrency = 1): Promise<{ state: StateBackend; prefix: string }> {
  const { state } = redisState({ url: redis.url, prefix, concurrency, maxQueue: 200 })
  await state.start?.({ log: recordingLogger() })
  opened.push(state)
  return { state, prefix }
}

const keyed = (id: string, fairKey: string): NewJob => ({ ...newJob(id), fairKey, receivedAt: Date.now() })
const add = async (state: StateBackend, job: NewJob) => state.queue.add(job, await state.dedup.reserve(job.dedupKey ?? ''))
const idOf = (added: Awaited<ReturnType<StateBackend['queue']['add']>>) => (added.status === 'accepted' ? added.id : '')

/** Starts `state`'s worker with `outcome`; resolves the delivery ids in the order they were leased. */
function run(state: StateBackend, outcome: (job: LeasedJob, leases: number) => JobOutcome = () => ({ kind: 'done' })): string[] {
  const leased: string[] = []
  state.queue.start(async (job) => {
    leased.push(job.job.deliveryId)
    return outcome(job, leased.filter((id) => id === job.job.deliveryId).length)
  })
  return leased
}

/** Waits until `state` has no queued or running job. */
async function drained(state: StateBackend): Promise<void> {
  await expect.poll(async () => {
    const { queued, running } = await state.jobs.counts()
    return queued + running
  }, { timeout: 10_000 }).toBe(0)
}

describe('redisState: fair turns (BullMQ\'s priority)', () => {
  it('a job a try puts back (retry) keeps its turn: it goes before the next round of every key, after its own round\'s jobs', async () => {
    const { state } = await backend()
    for (const [id, key] of [['a1', 'A'], ['a2', 'A'], ['a3', 'A'], ['b1', 'B'], ['b2', 'B']] as const) await add(state, keyed(id, key))
    const leased = run(state, (job, leases) => (job.job.deliveryId === 'a1' && leases === 1 ? { kind: 'retry', at: Date.now(), reason: 'HTTP 503' } : { kind: 'done' }))
    await expect.poll(() => leased.length, { timeout: 10_000 }).toBe(6)
    // First in, first out would run a1's second try last, after a3 and b2.
    expect(leased).toEqual(['a1', 'b1', 'a1', 'a2', 'b2', 'a3'])
  })

  it('two instances adding jobs of one key at once take a turn each, and leases follow them', async () => {
    const first = await backend()
    const second = await backend(first.prefix)
    const ids = Array.from({ length: 20 }, (_, i) => `busy-${i}`)
    await Promise.all(ids.map((id, i) => add(i % 2 === 0 ? first.state : second.state, keyed(id, 'octo/busy'))))
    const turns = (await first.state.jobs.list({ state: 'queued' })).map((j) => j.turn).sort((a, b) => (a ?? 0) - (b ?? 0))
    expect(turns).toEqual(Array.from({ length: 20 }, (_, i) => i))
    const quiet = await add(second.state, keyed('quiet', 'octo/quiet'))
    expect(await first.state.jobs.get(idOf(quiet))).toMatchObject({ turn: 0, fairKey: 'octo/quiet' })
    const leased = run(first.state)
    await expect.poll(() => leased.length, { timeout: 10_000 }).toBe(21)
    expect(leased[1]).toBe('quiet') // the busy key's turn-0 job, then the quiet one, then the busy key's other rounds
  })

  it('the turns\' sets keep only unfinished jobs: a drained queue leaves none, and its next job starts the rounds again at 0', async () => {
    const { state, prefix } = await backend(undefined, 2)
    const keys = keysOf(prefix)
    const group = { key: 'pr\u0000o/r#1', debounceMs: 0, maxWaitMs: 0 }
    await add(state, keyed('a1', 'A'))
    await add(state, keyed('a2', 'A'))
    await add(state, { ...keyed('g1', 'B'), group })
    await add(state, { ...keyed('g2', 'B'), group }) // g1 is superseded, unrun
    await add(state, keyed('fails', 'C'))
    expect(await redis.client.zcard(keys.turns)).toBe(5)
    const leased = run(state, (job) => (job.job.deliveryId === 'fails' ? { kind: 'failed', reason: 'exit 1' } : { kind: 'done' }))
    await drained(state)
    expect([...leased].sort()).toEqual(['a1', 'a2', 'fails', 'g2'])
    expect(await redis.client.zcard(keys.turns)).toBe(0)
    expect(await redis.client.keys(`${prefix}:turns:*`)).toEqual([])
    const next = await add(state, keyed('a3', 'A'))
    await expect.poll(async () => (await state.jobs.get(idOf(next)))?.state, { timeout: 10_000 }).toBe('done')
    expect(await state.jobs.get(idOf(next))).toMatchObject({ turn: 0 })
  })

  it('a job an admission left in the sets without storing it (its instance died on the way) is dropped, and holds no turn back', async () => {
    const { state, prefix } = await backend()
    const keys = keysOf(prefix)
    // What an instance that died between its admission's script and BullMQ's add leaves: its id in the sets, no job.
    await redis.client.zadd(keys.turns, 5, 'j900-dead')
    await redis.client.zadd(keys.keyTurns('A'), 5, 'j900-dead')
    const added = await add(state, keyed('a1', 'A'))
    expect(await state.jobs.get(idOf(added))).toMatchObject({ turn: 0 })
    expect(await redis.client.zscore(keys.turns, 'j900-dead')).toBeNull()
    expect(await redis.client.zscore(keys.keyTurns('A'), 'j900-dead')).toBeNull()
  })

  it('a deferred job takes its turn when it is stored, as on every backend, and keeps it while it waits to fall due', async () => {
    const { state } = await backend()
    const due = Date.now() + 300
    const deferred = await add(state, { ...keyed('deferred', 'A'), runAt: due })
    const a1 = await add(state, keyed('a1', 'A'))
    await add(state, keyed('b1', 'B'))
    await add(state, keyed('b2', 'B'))
    expect(await state.jobs.get(idOf(deferred))).toMatchObject({ turn: 0 })
    expect(await state.jobs.get(idOf(a1))).toMatchObject({ turn: 1 }) // after its key's deferred job
    await expect.poll(() => Date.now() >= due, { timeout: 5_000 }).toBe(true)
    const leased = run(state)
    await expect.poll(() => leased.length, { timeout: 10_000 }).toBe(4)
    // Turn 0 by when due (b1 at once, the deferred one at its moment), then turn 1.
    expect(leased).toEqual(['b1', 'deferred', 'a1', 'b2'])
  })

  it('a turn is at most MAX_TURN (BullMQ\'s highest priority less one): past it, jobs take that turn and are still accepted', async () => {
    const { state, prefix } = await backend()
    const keys = keysOf(prefix)
    // A job of key A on its way at turn MAX_TURN: A's next job would take the turn after it.
    await redis.client.zadd(keys.admitting, Date.now(), 'j900-far')
    await redis.client.zadd(keys.turns, MAX_TURN, 'j900-far')
    await redis.client.zadd(keys.keyTurns('A'), MAX_TURN, 'j900-far')
    const added = await add(state, keyed('a1', 'A'))
    expect(added.status).toBe('accepted')
    expect(await state.jobs.get(idOf(added))).toMatchObject({ turn: MAX_TURN })
    expect(await redis.client.hget(keys.bull(idOf(added)), 'priority')).toBe(String(2 ** 21 - 1))
  })
})
