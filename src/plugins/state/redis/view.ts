/** `hookpilot jobs` over BullMQ's lists: what is queued, running, done and failed, on every instance. */
import type { Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import { dedupKeyOf } from '../../../core/jobs/lifecycle/dedup-key.js'
import { jobMatcher } from '../../../core/jobs/views/job-filter.js'
import { retriedAs } from '../../../core/jobs/lifecycle/retry-mode.js'
import { purgeCutoff, purgeable } from '../../../core/jobs/lifecycle/transitions.js'
import type { JobCounts, JobsView } from '../../../core/jobs/lifecycle/jobs-view.js'
import type { JobRecord } from '../../../core/jobs/lifecycle/job-record.js'
import type { JobState } from '../../../core/job-state.js'
import type { RedisGroups } from './groups.js'
import type { Keys } from './keys.js'
import { BULL_STATES, dataOf, marksOf, readJob, recordOf, stateOf, type BullJob, type JobData } from './records.js'
import { RETAKE_TURN } from './turns.js'

/** The states listed one BullMQ list at a time (done stands for the completed list: done, skipped, superseded). */
const LISTS: readonly JobState[] = ['queued', 'running', 'done', 'failed']
/** Jobs read from Redis at a time while listing. */
const PAGE = 200
/** Ids read from Redis at a time while finding a page's jobs. */
const ID_CHUNK = 1_000

/** What {@link redisJobsView} needs. */
export interface RedisViewOptions {
  readonly queue: () => Queue<JobData, void, string>
  /** The connection the jobs' marks (records.ts, MARK_FIELD) are read and written on. */
  readonly redis: () => Redis
  readonly keys: Keys
  readonly now: () => number
  /** A done job holds its delivery id this long: purge never removes it sooner. */
  readonly windowMs: number
  /** The concurrency groups a retried job rejoins. */
  readonly groups?: RedisGroups | undefined
  /** The id of the job that holds a de-dup key (its binding in Redis), or null. */
  readonly keyOwner: (dedupKey: string) => Promise<string | null>
}

/** The jobs view. */
export function redisJobsView(options: RedisViewOptions): JobsView {
  const { queue, now, keys } = options

  /**
   * The ids in `state`'s BullMQ lists accepted before `before` (a job number), newest first. BullMQ keeps its
   * finished lists in the order jobs ended, not the order they were accepted, so a page in acceptance order
   * reads every id of the lists (ids only, a chunk at a time) and then only the records it returns.
   */
  async function idsBefore(state: JobState, before: number): Promise<string[]> {
    const ids: Array<{ readonly n: number; readonly id: string }> = []
    for (const type of BULL_STATES[state]) {
      for (let start = 0; ; start += ID_CHUNK) {
        const chunk = await queue().getRanges([type], start, start + ID_CHUNK - 1, false)
        for (const id of chunk) {
          const n = idNumber(id)
          if (n < before) ids.push({ n, id })
        }
        if (chunk.length < ID_CHUNK) break
      }
    }
    return ids.sort((a, b) => b.n - a.n).map((e) => e.id)
  }

  /** Up to `limit` jobs in `state` that `keep` accepts, newest first, read a page of records at a time. */
  async function listState(state: JobState, keep: (job: JobRecord) => boolean, limit: number, before: number): Promise<JobRecord[]> {
    const ids = await idsBefore(state, before)
    const out: JobRecord[] = []
    for (let start = 0; start < ids.length && out.length < limit; start += PAGE) {
      const chunk = ids.slice(start, start + PAGE)
      const [page, marks] = await Promise.all([
        Promise.all(chunk.map((id) => queue().getJob(id) as Promise<BullJob | undefined>)),
        marksOf(options.redis(), keys, chunk),
      ])
      for (const [i, job] of page.entries()) {
        if (job === undefined) continue // removed between the listing and the read
        const record = recordOf(job, state, marks[i])
        // A job may have moved to another list between the two reads: it is listed where it is now, or not at all.
        if (keep(record) && out.length < limit) out.push(record)
      }
    }
    return out
  }

  async function found(id: string): Promise<{ job: BullJob; record: JobRecord } | undefined> {
    const stored = await readJob(queue(), options.redis(), keys, id)
    if (!stored) return undefined
    const { job, mark } = stored
    return { job, record: recordOf(job, stateOf(await job.getState(), job.data), mark) }
  }

  return {
    async list(filter = {}) {
      const limit = filter.limit ?? Infinity
      const keep = jobMatcher(filter)
      const before = filter.before === undefined ? Infinity : idNumber(filter.before)
      const states = filter.state === undefined ? LISTS : [filter.state]
      const all = (await Promise.all(states.map((s) => listState(s, keep, limit, before)))).flat()
      // Ids count up as jobs are accepted: the highest is the newest, whichever list a job is in.
      return all.sort((a, b) => idNumber(b.id) - idNumber(a.id)).slice(0, limit)
    },
    async get(id) {
      return (await found(id))?.record
    },
    async find(route, deliveryId) {
      const id = await options.keyOwner(dedupKeyOf(route, deliveryId))
      const record = id === null ? undefined : (await found(id))?.record
      // The binding outlives the job (a purged one), and its key is a hash: only the delivery's own job answers.
      return record?.route === route && record.deliveryId === deliveryId ? record : undefined
    },
    async retry(id, mode = 'resume') {
      const current = await found(id)
      if (!current) return undefined
      let next = retriedAs(current.record, mode, now())
      // A job of a concurrency group rejoins it before it is queued: one whose group has a newer job is stale,
      // marked so, and a worker ends it superseded instead of running it.
      if (next.group !== undefined && options.groups) {
        const joined = await options.groups.join(next.id, next.receivedAt, { key: next.group, debounceMs: 0, maxWaitMs: 0 }, true, now())
        if (joined.newer !== undefined) next = { ...next, supersededBy: joined.newer }
      }
      await current.job.updateData(dataOf(next, current.job.data.payload))
      // A new fair turn, as on every backend (the lifecycle's takeTurn, in the script), which BullMQ's move reads;
      // and the mark, the job's own field: queued again, the job is outdated only by what rejoining found.
      const marked = next.supersededBy !== current.record.supersededBy ? '1' : '0'
      const turn = Number(await RETAKE_TURN(options.redis(), [keys.turns, keys.keyTurns(next.fairKey), keys.bull('active'), keys.admitting, keys.bull(next.id)],
        [next.id, keys.bull(''), marked, next.supersededBy ?? '']))
      await current.job.retry(current.record.state === 'failed' ? 'failed' : 'completed')
      return { ...next, turn }
    },
    async purge(before) {
      // Decided on the records (the lifecycle's purgeable, on their clock), a page of finished jobs at a time.
      const cutoff = purgeCutoff(before, now(), options.windowMs)
      let purged = 0
      for (const state of ['done', 'failed'] as const) {
        // 'done' lists BullMQ's completed jobs: done, skipped and superseded alike, each decided on its record.
        for (let start = 0; ; start += PAGE) {
          const page = (await queue().getJobs([...BULL_STATES[state]], start, start + PAGE - 1, true)) as (BullJob | undefined)[]
          // Purge decides on the state and the finish time; the mark plays no part, and is not read.
          const gone = page.filter((job): job is BullJob => job !== undefined && purgeable(recordOf(job, state, undefined), cutoff))
          await Promise.all(gone.map((job) => job.remove().catch(() => {})))
          purged += gone.length
          if (page.length < PAGE) break
          start -= gone.length // the removed ones no longer take places in the list
        }
      }
      return purged
    },
    async counts() {
      const raw = await queue().getJobCounts(...new Set(Object.values(BULL_STATES).flat()))
      // BullMQ counts its lists; the completed one holds done, skipped and superseded jobs, counted as done.
      const counts = { queued: 0, running: 0, done: 0, failed: 0, skipped: 0, superseded: 0 }
      for (const state of LISTS) for (const bull of BULL_STATES[state]) counts[state] += raw[bull] ?? 0
      return counts satisfies JobCounts
    },
  }
}

/** The sequence number in a job id (`j42-7f3a1c` → 42). */
export function idNumber(id: string): number {
  return Number(/^j(\d+)/.exec(id)?.[1] ?? 0)
}
