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
  if (group.closes === true) return closeGroup(job, group, members, t)
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
export function groupWait(group: Pick<JobGroup, 'debounceMs' | 'maxWaitMs'>, burstAt: number, t: number): number {
  return Math.max(t, Math.min(t + group.debounceMs, burstAt + group.maxWaitMs))
}

/** The reason a job ends when its pull request was closed or merged: its note begins with it. */
export const CLOSED = 'closed'

/** How a running job's `supersededBy` names the closing job `id`: its try ends `skipped` (closed), not `superseded`. */
export function closingMark(id: string): string {
  return `${CLOSED}:${id}`
}

/** Whether `by` (a `supersededBy`, a superseded signal's job) is a {@link closingMark}. */
export function isClosingMark(by: string | undefined): boolean {
  return by !== undefined && by.startsWith(`${CLOSED}:`)
}

/**
 * The event that closed or merged a pull request ends its group: `job` (the closing event's, never run) ends
 * `skipped` at once, the group's queued jobs end `skipped` (closed) before they run, and a running one is
 * marked with the {@link closingMark} of `job` (replacing a newer job's mark: the pull request is gone, whatever
 * came before), so its worker stops without posting and its try ends `skipped` (closed) too.
 */
export function closeGroup(job: JobRecord, group: JobGroup, members: readonly JobRecord[], t: number): Joined {
  const others: JobRecord[] = []
  const gone: JobRecord[] = []
  for (const member of members) {
    if (member.state === 'queued') {
      const ended = closed(member, job.id, t)
      others.push(ended)
      gone.push(ended)
    } else if (member.state === 'running') {
      others.push({ ...member, supersededBy: closingMark(job.id), updatedAt: t })
    }
  }
  const own: JobRecord = {
    ...job, group: group.key, state: 'skipped', note: `${CLOSED}: this event closed or merged the pull request; its group's jobs end with it`, updatedAt: t, finishedAt: t,
  }
  return { job: own, others, superseded: gone }
}

/** A job of a group whose pull request the event of job `by` (or its {@link closingMark}) closed or merged. */
export function closed(job: JobRecord, by: string, t: number): JobRecord {
  const id = isClosingMark(by) ? by.slice(CLOSED.length + 1) : by
  return { ...job, state: 'skipped', note: `${CLOSED}: its pull request was closed or merged (job ${id})`, updatedAt: t, finishedAt: t }
}

/**
 * A job replaced by the newer job `by` of its group before it ran (or, outdated, when its worker stopped); one
 * marked by a closing event ({@link closingMark}) ends `skipped` (closed) instead.
 */
export function superseded(job: JobRecord, by: string, t: number): JobRecord {
  if (isClosingMark(by)) return closed(job, by, t)
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
