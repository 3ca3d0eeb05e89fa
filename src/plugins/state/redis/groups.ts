/**
 * Concurrency groups on Redis, shared by every instance: a hash per group names its queued job (the newest,
 * not started), its running job and its newest job, and each change of it is one script, so two instances
 * admitting pushes of one pull request, or leasing its jobs, take turns. What the scripts keep is the lifecycle's
 * `joinGroup` and `leasable` (core/jobs/lifecycle/transitions.ts): the queued job a newer one replaces is marked and
 * ends `superseded` when a worker takes it (at once: it is promoted), a running one is marked `outdated`, and a
 * job is run only while no other job of its group holds a live lock.
 */
import type { Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import type { JobGroup } from '../../../core/jobs/lifecycle/job-record.js'
import { isClosingMark } from '../../../core/jobs/lifecycle/groups.js'
import type { Keys } from './keys.js'
import { MARK_FIELD, type BullJob, type JobData } from './records.js'
import { luaScript } from './script.js'

/**
 * Joins job ARGV[1] (received at ARGV[3]) to the group KEYS[1] at ARGV[2] (now): it becomes the group's queued
 * and newest job, inheriting the burst and the count of the queued job it replaces. ARGV[4]: '1' for a failed
 * job queued again by a redelivery, which is stale at once when the group has a newer job. ARGV[5]: the hash's
 * lifetime in seconds. Answers {burstAt, covers, replaced queued id, running id, newer id}.
 */
const JOIN = luaScript(`
local now = tonumber(ARGV[2])
if ARGV[4] == '1' then
  local newest = redis.call('HGET', KEYS[1], 'newest')
  local at = tonumber(redis.call('HGET', KEYS[1], 'newestAt') or '0')
  if newest and newest ~= ARGV[1] and at > tonumber(ARGV[3]) then return {0, 0, '', '', newest} end
end
local queued = redis.call('HGET', KEYS[1], 'queued') or ''
if queued == ARGV[1] then queued = '' end
local burstAt = now
local covers = 1
if queued ~= '' then
  burstAt = math.min(now, tonumber(redis.call('HGET', KEYS[1], 'burstAt') or ARGV[2]))
  covers = covers + tonumber(redis.call('HGET', KEYS[1], 'covers') or '1')
end
redis.call('HSET', KEYS[1], 'queued', ARGV[1], 'burstAt', burstAt, 'covers', covers)
if tonumber(ARGV[3]) >= tonumber(redis.call('HGET', KEYS[1], 'newestAt') or '0') then
  redis.call('HSET', KEYS[1], 'newest', ARGV[1], 'newestAt', ARGV[3])
end
redis.call('EXPIRE', KEYS[1], ARGV[5])
local running = redis.call('HGET', KEYS[1], 'running') or ''
return {burstAt, covers, queued, running, ''}`)

/**
 * Job ARGV[1] asks to run in group KEYS[1]: refused (0) while another job of the group holds its lock (the key
 * is ARGV[2] .. that job's id .. ':lock'); otherwise it becomes the group's running job (1). A running job whose
 * lock is gone belonged to an instance that died: its job is recovered, and this one may run.
 */
const CLAIM = luaScript(`
local running = redis.call('HGET', KEYS[1], 'running')
if running and running ~= ARGV[1] and redis.call('EXISTS', ARGV[2] .. running .. ':lock') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'running', ARGV[1])
if redis.call('HGET', KEYS[1], 'queued') == ARGV[1] then redis.call('HDEL', KEYS[1], 'queued') end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1`)

/**
 * Job ARGV[1]'s try ended: the group KEYS[1] has no running job any more (unless another took its place). When
 * the job goes back to the queue (ARGV[2] '1': a retry at a later time) it is the group's queued job again,
 * unless a newer one is: then that one's id is answered, and this one is stale.
 */
const RELEASE = luaScript(`
if redis.call('HGET', KEYS[1], 'running') == ARGV[1] then redis.call('HDEL', KEYS[1], 'running') end
if ARGV[2] ~= '1' then return '' end
local queued = redis.call('HGET', KEYS[1], 'queued')
if queued and queued ~= ARGV[1] then return queued end
redis.call('HSET', KEYS[1], 'queued', ARGV[1])
return ''`)

/**
 * Marks job KEYS[1] (BullMQ's job hash) outdated by ARGV[1] in its own field (records.ts, MARK_FIELD), unless it
 * already is or is gone; a closing mark (ARGV[2] = 1: the lifecycle's `closingMark`) replaces a newer job's, as
 * the lifecycle's `closeGroup` does. Answers 1 when it marked.
 */
const MARK = luaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], '${MARK_FIELD}', ARGV[1])
  return 1
end
return redis.call('HSETNX', KEYS[1], '${MARK_FIELD}', ARGV[1])`)

/** What a job joining its group is, as the group's hash decides. */
export interface RedisJoin {
  readonly burstAt: number
  readonly covers: number
  /** The queued job this one replaced (it ends superseded). */
  readonly replaced: string | undefined
  /** The group's running job, now outdated by this one. */
  readonly running: string | undefined
  /** A newer job of the group, when this one (a redelivered failed job) is stale at once. */
  readonly newer: string | undefined
}

/** The group operations of the Redis backend. */
export interface RedisGroups {
  join(id: string, receivedAt: number, group: JobGroup, requeued: boolean, now: number): Promise<RedisJoin>
  /** Marks job `id` outdated by `by` (a queued one is promoted, so a worker ends it at once). */
  mark(id: string, by: string): Promise<void>
  claim(group: string, id: string): Promise<boolean>
  /** Job `id`'s try ended; `requeued` when it waits for another try. Resolves a newer queued job that makes it stale. */
  release(group: string, id: string, requeued: boolean): Promise<string | undefined>
}

/** A group's hash outlives any job of it: a day past its last change. */
const GROUP_TTL_SECONDS = 24 * 60 * 60

/** The groups over `redis`. */
export function redisGroups(redis: () => Redis, queue: () => Queue<JobData, void, string>, keys: Keys): RedisGroups {
  return {
    async join(id, receivedAt, group, requeued, now) {
      const [burstAt, covers, replaced, running, newer] = (await JOIN(redis(), [keys.group(group.key)], [id, now, receivedAt, requeued ? '1' : '0', GROUP_TTL_SECONDS])) as [number, number, string, string, string]
      return { burstAt, covers, replaced: replaced || undefined, running: running || undefined, newer: newer || undefined }
    },
    async mark(id, by) {
      if ((await MARK(redis(), [keys.bull(id)], [by, isClosingMark(by) ? '1' : '0'])) !== 1) return
      // A queued job: promoted, so a worker ends it superseded now instead of at its debounced time.
      const job = (await queue().getJob(id)) as BullJob | undefined
      await job?.promote().catch(() => {}) // not delayed (waiting already, or running): nothing to promote
    },
    async claim(group, id) {
      return (await CLAIM(redis(), [keys.group(group)], [id, keys.bull(''), GROUP_TTL_SECONDS])) === 1
    },
    async release(group, id, requeued) {
      const newer = (await RELEASE(redis(), [keys.group(group)], [id, requeued ? '1' : '0'])) as string
      return newer || undefined
    },
  }
}
