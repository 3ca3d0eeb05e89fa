/**
 * The lifecycle's rules for concurrency groups (a route's `concurrency`), part of the one owner of the job
 * lifecycle: transitions.ts re-exports them, and EDGES (edges.ts) draws them with the rest.
 */
import type { JobGroup, JobRecord } from './job-record.js'


/** What storing the newest job of a group does to it and to the group's other unfinished jobs. */
export interface Joined {
  /** The new job: its group, its burst, what it covers, and the debounced time it may run. */
  readonly job: JobRecord
  /** The group's other jobs as they are now: queued ones superseded, running ones marked outdated. */
  readonly others: readonly JobRecord[]
  /** The jobs superseded before they ran, as they ended (also among `others`). */
  readonly superseded: readonly JobRecord[]
}

/**
 * A job joins its concurrency group, in the write that stores it: the group's queued jobs end `superseded` by
 * it (they never run; it covers their events and inherits their burst), a running one is marked
 * {@link outdated} (its worker stops, or drops its answer), and it runs once no newer event came for the
 * debounce, but no later than `max_wait` after its burst began. `members` are the group's queued and running
 * jobs other than `job`, and `newest` the group's most recently received job in any state, read in the same
 * write: a redelivery re-queuing an old failed job of a group that has a newer one ends `superseded` at once
 * (its answer would be of an older head).
 */
export function joinGroup(job: JobRecord, group: JobGroup, members: readonly JobRecord[], t: number, newest?: Pick<JobRecord, 'id' | 'receivedAt'>): Joined {
  if (newest !== undefined && newest.id !== job.id && newest.receivedAt > job.receivedAt) {
    return { job: superseded({ ...job, group: group.key }, newest.id, t), others: [], superseded: [] }
  }
  let burstAt = t
  let covers = job.covers
  const others: JobRecord[] = []
  const gone: JobRecord[] = []
  for (const member of members) {
    if (member.state === 'queued') {
      burstAt = Math.min(burstAt, member.burstAt ?? member.receivedAt)
      covers += member.covers
      const ended = superseded(member, job.id, t)
      others.push(ended)
      gone.push(ended)
    } else if (member.state === 'running') {
      others.push(outdated(member, job.id, t))
    }
  }
  // A deferred job keeps its booked moment: the debounce never runs it sooner.
  const notBefore = Math.max(job.notBefore, groupWait(group, burstAt, t))
  return { job: { ...job, group: group.key, burstAt, covers, notBefore, updatedAt: t }, others, superseded: gone }
}

/**
 * When the newest job of a group joined at `t` may run: once no newer event came for the debounce, but no later
 * than `max_wait` after its burst began (at `burstAt`).
 */
export function groupWait(group: JobGroup, burstAt: number, t: number): number {
  return Math.max(t, Math.min(t + group.debounceMs, burstAt + group.maxWaitMs))
}

/** A job replaced by the newer job `by` of its group before it ran (or, outdated, when its worker stopped). */
export function superseded(job: JobRecord, by: string, t: number): JobRecord {
  return {
    ...job, state: 'superseded', supersededBy: by, note: `superseded by job ${by}, a newer event of its concurrency group`, updatedAt: t, finishedAt: t,
  }
}

/**
 * A running job whose group got a newer job `by`: it keeps its lease; its worker stops or drops its answer. The
 * first newer job marks it and the mark stays (each newer job names the next: a chain that ends at the newest),
 * as its try learned it.
 */
export function outdated(job: JobRecord, by: string, t: number): JobRecord {
  return { ...job, supersededBy: job.supersededBy ?? by, updatedAt: t }
}

/**
 * Whether a queued job may be leased at `t`: it is due, and no job of its concurrency group runs (`busy` holds
 * the groups of the running jobs), so at most one job of a group runs at a time, on any number of workers.
 */
export function leasable(job: Pick<JobRecord, 'state' | 'notBefore' | 'group'>, busy: ReadonlySet<string>, t: number): boolean {
  return job.state === 'queued' && job.notBefore <= t && (job.group === undefined || !busy.has(job.group))
}
