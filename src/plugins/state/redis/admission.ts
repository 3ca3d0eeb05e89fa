/**
 * Storing an accepted event on Redis, as the lifecycle's `admit` decides: the decision is taken in this
 * process from the key's job as Redis holds it, and the write that follows checks, in one script, that what
 * it was decided from still holds (the key's owner, the failed job still failed) and that the queue has room,
 * counting the admissions of every instance that are on their way. When something changed in between (an
 * operator queued the job again, another instance stored the delivery), it decides again from what is there
 * now, so a copy is a duplicate here exactly as on the other backends, and `max_queue` is never overshot.
 */
import { randomUUID } from 'node:crypto'
import type { Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import { GatewayError } from '../../../core/errors.js'
import { backoffDelay, type Backoff } from '../../../util/backoff.js'
import type { AddResult, Reservation } from '../../../core/jobs/lifecycle/state-backend.js'
import type { JobRecord, NewJob } from '../../../core/jobs/lifecycle/job-record.js'
import { admit, queuedAgain } from '../../../core/jobs/lifecycle/transitions.js'
import { closingMark, groupWait, superseded } from '../../../core/jobs/lifecycle/groups.js'
import { handOver } from './dedup.js'
import type { RedisGroups, RedisJoin } from './groups.js'
import type { Keys } from './keys.js'
import { dataOf, MARK_FIELD, newData, priorityOf, type BullJob, type JobData } from './records.js'
import { luaScript } from './script.js'
import { TAKE_TURN } from './turns.js'

/**
 * The room check every write that queues a job makes (the lifecycle's rule: a new or re-queued job needs
 * `queued < max_queue`), over BullMQ's waiting lists and the admissions of every instance still on their way
 * (a sorted set by time; one older than ARGV[1] ms belongs to an instance that died and no longer counts).
 * KEYS[1..4]: wait, paused, delayed, prioritized; KEYS[5]: admitting. ARGV[1]: now, ARGV[2]: how long an
 * admission counts, ARGV[3]: max_queue.
 */
const ROOM = `
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local queued = redis.call('LLEN', KEYS[1]) + redis.call('LLEN', KEYS[2]) + redis.call('ZCARD', KEYS[3]) + redis.call('ZCARD', KEYS[4]) + redis.call('ZCARD', KEYS[5])
local room = queued < tonumber(ARGV[3])`

/**
 * A new job: its de-dup key (KEYS[6]) must still be owned by ARGV[4] ('' for none), the queue must have room;
 * then the next id, in this data set's epoch (KEYS[7] sequence, KEYS[8] epoch, created from ARGV[5] when Redis
 * lost it, so an id never repeats one issued before a data loss), is bound to the key for ARGV[6] s, the
 * admission (the id) is counted until the job is stored, and the job takes its fair turn (turns.ts: KEYS[9] the
 * unfinished jobs by turn, KEYS[10] its fairness key's, '' for none, KEYS[11] BullMQ's active list, ARGV[7] BullMQ's
 * key of a job less its id). Answers {'ok', id, turn}, {'changed', owner} or {'full'}.
 */
const INSERT = luaScript(`${ROOM}
${TAKE_TURN}
if KEYS[6] ~= '' then
  local owner = redis.call('GET', KEYS[6]) or ''
  if owner ~= ARGV[4] then return {'changed', owner} end
end
if not room then return {'full'} end
local epoch = redis.call('GET', KEYS[8])
if not epoch then
  redis.call('SET', KEYS[8], ARGV[5], 'NX')
  epoch = redis.call('GET', KEYS[8])
end
local id = 'j' .. redis.call('INCR', KEYS[7]) .. '-' .. epoch
if KEYS[6] ~= '' then redis.call('SET', KEYS[6], id, 'EX', ARGV[6]) end
redis.call('ZADD', KEYS[5], ARGV[1], id)
return {'ok', id, take_turn(KEYS[9], KEYS[10], KEYS[11], KEYS[5], ARGV[7], id)}`)

/**
 * A failed job queued again: it must still be in the failed set (KEYS[6], member ARGV[4]) and the queue must
 * have room; then its data (KEYS[7] field `data`) becomes ARGV[5], and its mark (records.ts, MARK_FIELD) is
 * cleared as the lifecycle's `queuedAgain` clears it, before BullMQ moves it. It takes a new fair turn, as a new
 * job does (turns.ts, `requeued`: KEYS[8..10] and ARGV[6] as INSERT's KEYS[9..11] and ARGV[7]), which BullMQ's
 * move reads from its priority. Answers {'ok', turn}, 'changed' or 'full'.
 */
const REQUEUE = luaScript(`${ROOM}
${TAKE_TURN}
if not redis.call('ZSCORE', KEYS[6], ARGV[4]) then return 'changed' end
if not room then return 'full' end
redis.call('HSET', KEYS[7], 'data', ARGV[5])
redis.call('HDEL', KEYS[7], '${MARK_FIELD}')
return {'ok', requeued(KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[5], ARGV[6], ARGV[4])}`)

/**
 * Admission ARGV[1] is over (its job stored, or refused): it no longer counts in KEYS[1]; and the request's hold
 * (KEYS[2], token ARGV[2]; none when KEYS[2] is '') is given back if it is still the request's, in the same
 * round trip.
 */
const ADMITTED = luaScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
if KEYS[2] ~= '' and redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
return 1`)

/** An admission counts this long at most: far past the few milliseconds between its count and its job. */
const ADMITTING_MS = 10_000
/** Rounds of decide-then-write before a request gives up (503): each means another writer changed the key. */
const ROUNDS = 5
/**
 * How long a copy waits for a job that another request bound its key to: an admission on its way stores its job
 * within milliseconds. One that has not within this was bound by a script that ran after its request had given
 * up (Redis froze with the command on its way and ran it once it went on): that request was answered 503 and
 * stored no job, so its key must not turn the sender's next copy into a "duplicate" of nothing.
 */
const ON_ITS_WAY_MS = 1_000
/** Between looks at an admission on its way: a few milliseconds at first, never more than 50 ms. */
const ON_ITS_WAY_WAIT: Backoff = { baseDelayMs: 2, maxDelayMs: 50 }

/** What {@link redisAdmission} needs. */
export interface RedisAdmissionOptions {
  readonly redis: () => Redis
  readonly queue: () => Queue<JobData, void, string>
  readonly keys: Keys
  readonly now: () => number
  readonly windowMs: number
  readonly maxQueue: number
  /** How long a de-dup key's binding lasts (it outlives every job that can hold it). */
  readonly keyTtlSeconds: number
  /** The record of job `id` as Redis holds it now, or undefined when it is gone. */
  readonly record: (id: string) => Promise<{ job: BullJob; record: JobRecord } | undefined>
  readonly groups: RedisGroups
  /** A running job the new one outdated (this instance's worker stops it now when it runs it here). */
  readonly outdated: (id: string, by: string) => void
}

/** `queue.add` of the Redis backend: stores `job` as the lifecycle's `admit` decides. */
export function redisAdmission(options: RedisAdmissionOptions): (job: NewJob, reservation: Reservation | undefined) => Promise<AddResult> {
  const { redis, keys, now } = options
  const roomKeys = [keys.bull('wait'), keys.bull('paused'), keys.bull('delayed'), keys.bull('prioritized'), keys.admitting]
  // An admission's age is a timer, like BullMQ's: on the machine's clock, not the records'.
  const roomArgs = () => [Date.now(), ADMITTING_MS, options.maxQueue]
  /** The keys a job's fair turn is taken from (turns.ts): the unfinished jobs', its key's, BullMQ's active list. */
  const turnKeys = (fairKey: string | undefined) => [keys.turns, keys.keyTurns(fairKey), keys.bull('active')]

  async function insert(job: NewJob, owner: string, reservation: Reservation | undefined): Promise<AddResult | { changed: string }> {
    // Six random hex digits (randomUUID's first six: its version digit comes later), from a cached pool.
    const epoch = randomUUID().slice(0, 6)
    const keyOwner = job.dedupKey === undefined ? '' : keys.keyOwner(job.dedupKey)
    const answer = (await INSERT(redis(), [...roomKeys, keyOwner, keys.sequence, keys.epoch, ...turnKeys(job.fairKey)], [...roomArgs(), owner, epoch, options.keyTtlSeconds, keys.bull('')])) as [string, string?, number?]
    if (answer[0] === 'full') return { status: 'full' }
    if (answer[0] === 'changed') return { changed: answer[1] ?? '' }
    const id = answer[1] ?? ''
    const turn = answer[2] ?? 0
    let joined: RedisJoin | undefined
    try {
      // keyMoved: the key's previous holder (done past the window) no longer holds it.
      if (owner !== '') await detachKey(owner)
      const t = now()
      let data = newData(job, t)
      if (job.group !== undefined) {
        // The lifecycle's joinGroup, over the group's hash: the new job waits for the debounce within its burst
        // (and a deferred one for its booked moment too).
        joined = await options.groups.join(id, job.receivedAt, job.group, false, t)
        const notBefore = Math.max(data.notBefore, groupWait(job.group, joined.burstAt, t))
        data = { ...data, group: job.group.key, burstAt: joined.burstAt, covers: joined.covers, notBefore }
      }
      const delay = data.notBefore - t
      // Its turn is its priority: BullMQ leases by it (turns.ts), a delayed job too once it falls due.
      await options.queue().add('job', data, { jobId: id, delay, priority: priorityOf(turn) })
    } finally {
      // Counted in BullMQ's lists from here on; an admission left behind stops counting after ADMITTING_MS. The
      // key is bound to the stored job: a copy waiting on the hold now finds the job (one command for both).
      const hold = handOver(reservation)
      ADMITTED(redis(), [keys.admitting, hold?.key ?? ''], [id, hold?.token ?? '']).catch(() => {})
    }
    return { status: 'accepted', id, superseded: await replace(joined, id, job.group?.closes === true) }
  }

  /**
   * Marks what a job that joined its group replaced: the queued job ends superseded (when a worker takes it, at
   * once), a running one is outdated. Resolves the queued one's record as it ends, for the gateway to publish.
   * The job of an event that closed the pull request (`closes`) marks them, and itself, with its closing mark
   * (the lifecycle's `closingMark`): each ends `skipped` (closed) when a worker takes it or its try ends, and it
   * never runs.
   */
  async function replace(joined: RedisJoin | undefined, id: string, closes: boolean): Promise<JobRecord[] | undefined> {
    const by = closes ? closingMark(id) : id
    if (closes) await options.groups.mark(id, by)
    if (joined?.running !== undefined) {
      await options.groups.mark(joined.running, by)
      options.outdated(joined.running, by)
    }
    if (joined?.replaced === undefined) return undefined
    await options.groups.mark(joined.replaced, by)
    const found = await options.record(joined.replaced)
    return found && [superseded(found.record, by, now())]
  }

  async function requeue(failed: { job: BullJob; record: JobRecord }, runAt: number | undefined): Promise<AddResult | 'changed'> {
    const again = queuedAgain(failed.record, now(), runAt)
    const data = JSON.stringify(dataOf(again, failed.job.data.payload))
    const answer = await REQUEUE(redis(), [...roomKeys, keys.bull('failed'), keys.bull(again.id), ...turnKeys(again.fairKey)], [...roomArgs(), again.id, data, keys.bull('')])
    if (answer === 'full') return { status: 'full' }
    if (answer === 'changed') return 'changed'
    // Another writer (an operator's retry) may move it first: then it is theirs, and this is decided again.
    const moved = await failed.job.retry('failed').then(() => true, () => false)
    if (!moved) return 'changed'
    const group = failed.job.data.group
    if (group === undefined) return { status: 'accepted', id: again.id }
    // Its group's own hash knows the group's debounce no more: it runs at once, unless a newer job makes it stale.
    const joined = await options.groups.join(again.id, again.receivedAt, { key: group, debounceMs: 0, maxWaitMs: 0 }, true, now())
    if (joined.newer !== undefined) {
      await options.groups.mark(again.id, joined.newer)
      return { status: 'accepted', id: again.id }
    }
    return { status: 'accepted', id: again.id, superseded: await replace(joined, again.id, false) }
  }

  /** Waits while job `id` is on its way to BullMQ; an admission that never stores it stops counting. */
  async function awaitAdmission(id: string): Promise<void> {
    const until = Date.now() + ON_ITS_WAY_MS
    for (let attempt = 1; Date.now() < until; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, backoffDelay(ON_ITS_WAY_WAIT, attempt)))
      if ((await redis().zscore(keys.admitting, id)) === null || (await options.record(id))) return
    }
    await redis().zrem(keys.admitting, id)
  }

  async function detachKey(id: string): Promise<void> {
    const found = await options.record(id)
    if (found) await found.job.updateData({ ...found.job.data, dedupKey: undefined })
  }

  return async function add(job, reservation) {
    let owner = reservation?.status === 'redeliver' ? reservation.jobId : ''
    for (let round = 0; round < ROUNDS; round++) {
      const holder = owner === '' ? undefined : await options.record(owner)
      // A key whose job is still on its way to BullMQ (another instance bound it a moment ago) is that job's once
      // it is stored: decided again then, or, if it never is, as a key whose job is gone.
      if (owner !== '' && !holder && (await redis().zscore(keys.admitting, owner)) !== null) {
        await awaitAdmission(owner)
        continue
      }
      // The room is counted by the write itself; here the decision is only which write.
      const admission = admit({ holder: holder?.record, windowMs: options.windowMs, now: now(), queued: 0, maxQueue: Infinity })
      if (admission.kind === 'duplicate') return { status: 'duplicate', id: admission.id }
      if (admission.kind === 'requeue' && holder) {
        const requeued = await requeue(holder, job.runAt)
        if (requeued !== 'changed') return requeued
        continue
      }
      // A key naming a job that is gone (purged, or lost with Redis's data) moves like a done job's.
      const inserted = await insert(job, owner, reservation)
      if (!('changed' in inserted)) return inserted
      owner = inserted.changed
    }
    throw new GatewayError('ERR_STATE', `The de-dup key of delivery ${job.deliveryId} kept changing while it was stored; the sender may send it again.`)
  }
}
