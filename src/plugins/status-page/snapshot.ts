/**
 * What the status page shows, read from the jobs view: how many jobs wait, which run and for how long, which wait
 * to retry (why, and when their next try runs), the last ones that ended, and failed jobs grouped by reason. A job is shown by these fields only: its payload, its
 * answer and anything else a sender wrote beyond them never reach the page. Its link is checked again here (an
 * https URL, no credentials): a record another writer stored cannot put a `javascript:` link on the page.
 */
import { reasonOf } from '../../core/jobs/views/job-filter.js'
import { validLink } from '../../core/jobs/lifecycle/origin.js'
import { reasonGroups, type ReasonGroup } from '../../core/jobs/views/reason-groups.js'
import type { FinalState } from '../../core/job-state.js'
import type { JobCounts, JobsView } from '../../core/jobs/lifecycle/jobs-view.js'
import type { JobRecord } from '../../core/jobs/lifecycle/job-record.js'
import { usageText } from '../../core/usage.js'

/** One job as the page shows it. */
export interface JobLine {
  readonly id: string
  readonly route: string
  readonly event: string
  readonly deliveryId: string
  /** The event's page (pull request, merge request, market): only an https link without credentials. */
  readonly link: string | undefined
  /** Its state: the outcome of a finished job. */
  readonly state: string
  /** Why it failed, waits to retry, or was skipped or superseded (at most 300 characters). */
  readonly reason: string | undefined
  readonly attempts: number
  readonly receivedAt: number
  readonly updatedAt: number
  readonly finishedAt: number | undefined
  /** What its agent runs used, in words (`1,200 in, 300 out, $0.0042 (gpt-4.1-mini)`); absent before any run reported it. */
  readonly usage?: string | undefined
}

/** The page's data, as /status/jobs.json serves it. */
export interface JobsSnapshot {
  readonly at: number
  readonly counts: JobCounts
  /** Running jobs with how long (ms) since their try began. */
  readonly running: ReadonlyArray<JobLine & { readonly ageMs: number }>
  /**
   * Queued jobs that failed a try and wait for the next, soonest first: `reason` is why the last try failed,
   * `runsAt` when the next one may start (ms since the epoch; at or before `at` when it is due now).
   */
  readonly retrying: ReadonlyArray<JobLine & { readonly runsAt: number }>
  /** Jobs waiting to retry in all (of the latest {@link RETRYING_READ} queued ones); `retrying` shows the first 25. */
  readonly retryingCount: number
  readonly finished: readonly JobLine[]
  /** Reasons of the latest {@link FAILED_GROUPED} failed jobs. */
  readonly failed: readonly ReasonGroup[]
}

/** Jobs of each list shown. */
const SHOWN = 25
/** Failed jobs read for the grouping, newest first: a refresh stays one small read however many there are. */
export const FAILED_GROUPED = 1_000
/**
 * Queued jobs with a last error read for the retry list: ordered by their next try here, since the view lists
 * newest first. A queue of thousands of retries is an incident the failed groups and counts already show.
 */
export const RETRYING_READ = 1_000
const FINAL: readonly FinalState[] = ['done', 'skipped', 'superseded', 'failed']

/** Reads the snapshot at `now`. */
export async function jobsSnapshot(view: JobsView, now: number): Promise<JobsSnapshot> {
  const [counts, running, retrying, failed, ...finals] = await Promise.all([
    view.counts(),
    view.list({ state: 'running', limit: SHOWN }),
    // A queued job with a reason is one whose last try failed: the glob `*` matches any reason, none excluded.
    view.list({ state: 'queued', reason: '*', limit: RETRYING_READ }),
    view.list({ state: 'failed', limit: FAILED_GROUPED }),
    ...FINAL.map((state) => view.list({ state, limit: SHOWN })),
  ])
  const grouping = reasonGroups(50)
  for (const job of failed) grouping.add(job)
  const finished = finals.flat().sort((a, b) => (b.finishedAt ?? b.updatedAt) - (a.finishedAt ?? a.updatedAt)).slice(0, SHOWN)
  return {
    at: now,
    counts,
    running: running.map((job) => ({ ...line(job), ageMs: Math.max(0, now - job.updatedAt) })),
    retrying: [...retrying].sort((a, b) => a.notBefore - b.notBefore).slice(0, SHOWN).map((job) => ({ ...line(job), runsAt: job.notBefore })),
    retryingCount: retrying.length,
    finished: finished.map(line),
    failed: grouping.groups(),
  }
}

function line(job: JobRecord): JobLine {
  return {
    id: job.id, route: job.route, event: job.event, deliveryId: job.deliveryId, link: validLink(job.link), state: job.state, reason: reasonOf(job)?.slice(0, 300),
    attempts: job.attempts, receivedAt: job.receivedAt, updatedAt: job.updatedAt, finishedAt: job.finishedAt,
    // Built from the checked numbers only: a model name is the provider's text, shown as text by the page.
    ...(job.usage === undefined ? {} : { usage: usageText(job.usage) }),
  }
}
