/**
 * A {@link JobFilter}'s fields as one rule, for the backends that filter records in JavaScript (memory, Redis,
 * a plugin's) and, as SQL, for SQLite: the same jobs match on every backend.
 */
import type { JobFilter } from '../lifecycle/jobs-view.js'
import type { JobRecord } from '../lifecycle/job-record.js'

/**
 * Why a job is where it is, as `hookpilot jobs` and the status page show and group it: why it failed (or waits
 * to retry), or why it was skipped or superseded. A done job has none (an earlier error is history).
 */
export function reasonOf(job: Pick<JobRecord, 'state' | 'note' | 'lastError'>): string | undefined {
  if (job.state === 'skipped' || job.state === 'superseded') return job.note
  return job.state === 'done' ? undefined : job.lastError
}

/** Whether a reason pattern is a glob (it has a `*` or `?`) rather than text to find anywhere in the reason. */
function isGlob(pattern: string): boolean {
  return /[*?]/.test(pattern)
}

/** The test of a reason against an operator's pattern: text anywhere in it, or a glob over all of it; case-insensitive. */
export function reasonMatcher(pattern: string): (reason: string | undefined) => boolean {
  const wanted = pattern.toLowerCase()
  if (!isGlob(pattern)) return (reason) => reason !== undefined && reason.toLowerCase().includes(wanted)
  const source = [...wanted].map((c) => (c === '*' ? '[\\s\\S]*' : c === '?' ? '[\\s\\S]' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('')
  const glob = new RegExp(`^${source}$`)
  return (reason) => reason !== undefined && glob.test(reason.toLowerCase())
}

/**
 * The reason pattern as an SQL `LIKE` pattern with `\` as its escape (SQLite's LIKE is case-insensitive for
 * ASCII; the text search is a `%…%`).
 */
export function reasonLike(pattern: string): string {
  const escaped = (c: string) => (c === '%' || c === '_' || c === '\\' ? `\\${c}` : c)
  if (!isGlob(pattern)) return `%${[...pattern].map(escaped).join('')}%`
  return [...pattern].map((c) => (c === '*' ? '%' : c === '?' ? '_' : escaped(c))).join('')
}

/** Whether a record passes a filter's state, route, times and reason (the cursor and the limit are the caller's). */
export function jobMatcher(filter: JobFilter): (job: JobRecord) => boolean {
  const reason = filter.reason === undefined ? undefined : reasonMatcher(filter.reason)
  return (job) =>
    (filter.state === undefined || job.state === filter.state)
    && (filter.route === undefined || job.route === filter.route)
    && (filter.since === undefined || job.updatedAt >= filter.since)
    && (filter.until === undefined || job.updatedAt <= filter.until)
    && (reason === undefined || reason(reasonOf(job)))
}
