/**
 * Failed jobs grouped by why they failed, as `hookpilot jobs list --by reason` and the status page show them:
 * after an incident, the one reason behind hundreds of failures is one line, with how many and since when.
 */
import type { JobRecord } from '../lifecycle/job-record.js'
import { reasonOf } from './job-filter.js'

/** One reason and the jobs that share it. */
export interface ReasonGroup {
  /** The reason's first line (at most {@link REASON_CHARS} characters); `(no reason)` when a job has none. */
  readonly reason: string
  readonly count: number
  /** When the newest job of the group last changed (ms since the epoch). */
  readonly latest: number
  /** When the oldest job of the group last changed. */
  readonly earliest: number
  /** The routes of the group's jobs, in the order first seen (at most {@link MAX_ROUTES}). */
  readonly routes: readonly string[]
}

/** A reason is grouped by its first line, cut here: an agent's long stderr tail is not a reason of its own. */
export const REASON_CHARS = 200
/** Distinct reasons kept; the jobs of any further reason count in one `(other reasons)` group. */
export const MAX_GROUPS = 200
const MAX_ROUTES = 10
const OTHER = '(other reasons)'

/** A grouping that jobs are added to one at a time: it holds at most {@link MAX_GROUPS} groups, never the jobs. */
export function reasonGroups(maxGroups = MAX_GROUPS): { add(job: JobRecord): void; groups(): ReasonGroup[] } {
  const groups = new Map<string, { reason: string; count: number; latest: number; earliest: number; routes: string[] }>()
  return {
    add(job) {
      const first = (reasonOf(job) ?? '').split('\n', 1)[0]?.trim() ?? ''
      let reason = first === '' ? '(no reason)' : first.slice(0, REASON_CHARS)
      if (!groups.has(reason) && groups.size >= maxGroups) reason = OTHER
      const group = groups.get(reason) ?? { reason, count: 0, latest: job.updatedAt, earliest: job.updatedAt, routes: [] }
      group.count++
      group.latest = Math.max(group.latest, job.updatedAt)
      group.earliest = Math.min(group.earliest, job.updatedAt)
      if (group.routes.length < MAX_ROUTES && !group.routes.includes(job.route)) group.routes.push(job.route)
      groups.set(reason, group)
    },
    groups: () => [...groups.values()].sort((a, b) => b.count - a.count || b.latest - a.latest),
  }
}
