/**
 * The filter flags `hookpilot jobs list` and `hookpilot jobs retry --state` share (`--state --route --since
 * --until --reason --limit`), read into the jobs view's filter, and said back in words before a replay.
 */
import type { JobFilter } from '../core/jobs/lifecycle/jobs-view.js'
import type { JobState } from '../core/job-state.js'
import { UsageError } from './args.js'

/** The job states, as `--state` takes them. */
export const STATES: readonly JobState[] = ['queued', 'running', 'done', 'skipped', 'superseded', 'failed']

/** The flags' text as `parse` returns it. */
export interface FilterFlags {
  readonly state?: string | undefined
  readonly route?: string | undefined
  readonly since?: string | undefined
  readonly until?: string | undefined
  readonly reason?: string | undefined
  readonly limit?: string | undefined
}

/** The option specs of the filter flags, for `parse`. */
export const FILTER_OPTIONS = {
  state: { type: 'string' },
  route: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  reason: { type: 'string' },
  limit: { type: 'string' },
} as const

/** The view's filter from the flags, with times read at `now`. */
export function jobFilter(flags: FilterFlags, now: number): JobFilter {
  return {
    state: jobState(flags.state),
    route: flags.route,
    since: flags.since === undefined ? undefined : moment(flags.since, '--since', now),
    until: flags.until === undefined ? undefined : moment(flags.until, '--until', now),
    reason: flags.reason,
    limit: whole(flags.limit, '--limit'),
  }
}

/** The filter in words: `failed jobs of route pr-review that changed since …, whose reason matches "*502*"`. */
export function describeFilter(filter: JobFilter): string {
  const parts = [`${filter.state ?? 'all'} jobs`]
  if (filter.route !== undefined) parts.push(`of route ${filter.route}`)
  if (filter.since !== undefined && filter.until !== undefined) parts.push(`that changed between ${iso(filter.since)} and ${iso(filter.until)}`)
  else if (filter.since !== undefined) parts.push(`that changed since ${iso(filter.since)}`)
  else if (filter.until !== undefined) parts.push(`that changed until ${iso(filter.until)}`)
  if (filter.reason !== undefined) parts.push(`whose reason ${/[*?]/.test(filter.reason) ? 'matches' : 'holds'} ${JSON.stringify(filter.reason)}`)
  if (filter.limit !== undefined) parts.push(`(at most ${filter.limit})`)
  return parts.join(' ')
}

/** A state from `--state`. */
export function jobState(value: string | undefined): JobState | undefined {
  if (value === undefined) return undefined
  if (!(STATES as readonly string[]).includes(value)) throw new UsageError(`--state takes one of ${STATES.join(', ')}, not "${value}".`)
  return value as JobState
}

/** A whole number of at least 1 from a flag. */
export function whole(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} takes a whole number of at least 1, not "${value}".`)
  return Number(value)
}

const UNITS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `30m`, `12h`, `7d` in milliseconds. */
export function duration(text: string, flag = '--older-than'): number {
  const match = /^(\d+)([smhd])$/.exec(text.trim())
  if (!match) throw new UsageError(`${flag} takes an age such as 30m, 12h or 7d (units: s, m, h, d), not "${text}".`)
  return Number(match[1]) * (UNITS[match[2] ?? 'd'] ?? 0)
}

/** A point in time from a flag: an age before `now` (`2h`), or a date and time (`2025-06-01T14:00:00Z`). */
function moment(text: string, flag: string, now: number): number {
  if (/^\d+[smhd]$/.test(text.trim())) return now - duration(text, flag)
  const at = /^\d{4}-\d\d-\d\d/.test(text) ? Date.parse(text) : NaN
  if (Number.isNaN(at)) throw new UsageError(`${flag} takes an age (30m, 2h, 7d) or a date and time (2025-06-01T14:00:00Z), not "${text}".`)
  return at
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}
