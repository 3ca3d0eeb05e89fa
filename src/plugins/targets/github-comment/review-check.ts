/**
 * Review mode's check: one per reviewed head, named for the route, so branch protection can require it. Through
 * the Checks API as a GitHub App (a check run, app-comments.ts), or as a commit status through a person's gh
 * (gh-statuses.ts), which cannot write checks. The conclusion tells the truth about that head:
 *
 * - `success`: that exact head was reviewed (this route's review of it is on the pull request) and no finding
 *   reached `deliver_extra.fail_on`;
 * - `failure`: it was reviewed and a finding reached `fail_on`;
 * - `skipped`: the answer was for a head that is no longer the pull request's (superseded); that older head's
 *   check says so, and never `success`;
 * - `neutral`: the job ended without a review and nothing was wrong (a silent output: the agent had nothing to
 *   say, or a filter of the route skipped it);
 * - `cancelled`: a newer event of the route's concurrency group came before the answer was posted;
 * - `failure` too when the review failed for good (the run or the post): the head is not reviewed.
 *
 * The last three are written when the job ends ({@link endedCheck}, the target's `ended`), and only for a head
 * the route has no review of: a head already reviewed keeps its check.
 *
 * The check is marked running when the agent starts (the target's `started`: a run `in_progress`), and that same
 * run is completed: the head's running check is found and updated, a completed one created only when none is
 * running. Statuses have four states: `success` and `failure` as above, `pending` while the review runs, `error`
 * where a check would be `skipped`, `cancelled` or `neutral`.
 */
import type { ReviewDocument, Severity } from '../../../core/review/document.js'
import { SEVERITIES } from '../../../core/review/schema.js'
import { reaches } from '../../../core/review/severity.js'
import { publicEnding } from '../../../core/policy/public-ending.js'

/** The conclusions review mode gives (a subset of GitHub's). */
export type CheckConclusion = 'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped'

/** One annotation as the Checks API takes it. */
export interface CheckAnnotation {
  readonly path: string
  readonly start_line: number
  readonly end_line: number
  readonly annotation_level: 'notice' | 'warning' | 'failure'
  readonly message: string
  readonly title?: string
}

/** How a check ends. */
export interface CheckResult {
  readonly conclusion: CheckConclusion
  readonly title: string
  readonly summary: string
  readonly annotations: readonly CheckAnnotation[]
}

/** What a check is written with besides its result. */
export interface CheckOptions {
  /** The page people follow from the check (the job on the status page), when its address is configured. */
  readonly link?: string | undefined
  /** The job that writes it: a check run carries it (`external_id`), so a job finds the run it marked. */
  readonly job?: string | undefined
}

/** The check of one pull request's heads, as one account. Failures are DeliveryErrors, as CommentApi's. */
export interface CheckApi {
  /**
   * Marks the check `name` of `head` as running (a check run `in_progress`, a `pending` status). With `reuse` (a
   * later try of a job, which an earlier try may have marked), a run the job marked and is still running is kept,
   * not doubled.
   */
  startCheck(name: string, head: string, options: CheckOptions & { readonly reuse: boolean }): Promise<void>
  /**
   * Completes the check `name` of `head` with `result`: every run of it still in progress (the one the job marked,
   * and any an ended job left), the newest with the annotations, {@link ANNOTATIONS_PER_REQUEST} per request; a
   * completed one is created when none is running. A status carries no annotations.
   */
  finishCheck(name: string, head: string, result: CheckResult, options: CheckOptions): Promise<void>
  /**
   * For a head whose review stands (another job's): a run of the check that this job marked and is still running
   * is completed as the head's last completed check says (its conclusion, title and summary), or as `fallback`
   * when it has none. Nothing is written when none is: the head keeps its check.
   */
  settleRunning(name: string, head: string, fallback: CheckResult, options: CheckOptions): Promise<void>
}

/** No check at all (`deliver_extra.check: false`, for an App installed without `checks: write`). */
export const NO_CHECK: CheckApi = {
  startCheck: () => Promise.resolve(),
  finishCheck: () => Promise.resolve(),
  settleRunning: () => Promise.resolve(),
}

/** GitHub's cap on annotations in one request; each further update appends. */
export const ANNOTATIONS_PER_REQUEST = 50


const LEVELS: Readonly<Record<Severity, CheckAnnotation['annotation_level']>> = { critical: 'failure', major: 'failure', minor: 'warning', nit: 'notice' }
const MESSAGE_LIMIT = 60_000

/**
 * The check of a head this route's review stands on: `failure` when a finding reaches `failOn`, else `success`.
 * Annotations are the findings on the new file (an old-side line does not exist in the head's file); they go in
 * the review too, so none is lost.
 */
export function reviewedCheck(review: ReviewDocument, head: string, url: string | undefined, failOn: Severity | undefined): CheckResult {
  const failing = failOn === undefined ? [] : review.findings.filter((f) => reaches(f, failOn))
  const counts = SEVERITIES.map((s) => [s, review.findings.filter((f) => f.severity === s).length] as const).filter(([, n]) => n > 0)
  const tally = counts.length === 0 ? 'no findings' : counts.map(([s, n]) => `${n} ${s}`).join(', ')
  const where = url === undefined ? '' : ` ([the review](${url}))`
  return {
    conclusion: failing.length > 0 ? 'failure' : 'success',
    title: failing.length > 0 ? `${failing.length} finding${failing.length === 1 ? '' : 's'} at ${failOn} or above` : `Reviewed: ${tally}`,
    summary: `Head ${head} was reviewed${where}: ${tally}.${failOn === undefined ? '' : ` The route fails the check at ${failOn}.`}`,
    annotations: review.findings.filter((f) => f.side === 'RIGHT').map((f) => ({
      path: f.path,
      start_line: f.start_line ?? f.line,
      end_line: f.line,
      annotation_level: LEVELS[f.severity],
      message: f.body.length > MESSAGE_LIMIT ? `${f.body.slice(0, MESSAGE_LIMIT)}…` : f.body,
      title: f.title === undefined ? f.severity : `${f.severity}: ${f.title.slice(0, 200)}`,
    })),
  }
}

/** The check of a head whose answer was not posted: the pull request's head had moved on. Never `success`. */
export function supersededCheck(answered: string, head: string): CheckResult {
  return {
    conclusion: 'skipped',
    title: 'Superseded: not reviewed',
    summary: `This answer was for ${answered}, but the pull request's head moved to ${head} before it was posted; nothing was posted for ${answered}.`,
    annotations: [],
  }
}

/**
 * The check of a head whose review another job posted, for a run this job marked, when the head has no completed
 * check to copy (the reviewing job has not completed its own yet, and does when it is tried again): `neutral`,
 * naming the review. Never `success`: this job does not know what the review found.
 */
export function standingCheck(head: string, url: string): CheckResult {
  return { conclusion: 'neutral', title: 'Reviewed by another job', summary: `Head ${head} has this route's review ([the review](${url})); this job posted nothing.`, annotations: [] }
}

/** How a job of the route ended without a review ({@link EndedJob.outcome}), as its head's check says. */
export function endedCheck(outcome: 'skipped' | 'superseded' | 'failed', head: string, reason: string): CheckResult {
  // A check is public to whoever reads the pull request: the job's own reason is the operator's.
  const { short, said } = publicEnding(outcome, reason)
  const why = said.length > 1_000 ? `${said.slice(0, 1_000)}…` : said
  const [conclusion, title]: [CheckConclusion, string] =
    outcome === 'skipped' ? ['neutral', `Not reviewed: ${short}`]
      : outcome === 'superseded' ? ['cancelled', `Cancelled: ${short}`]
        : ['failure', `Not reviewed: ${short}`]
  return { conclusion, title, summary: `Head ${head} was not reviewed: ${why}`, annotations: [] }
}

/** `annotations` in requests of at most {@link ANNOTATIONS_PER_REQUEST}; one empty page when there are none. */
export function annotationPages(annotations: readonly CheckAnnotation[]): CheckAnnotation[][] {
  const pages: CheckAnnotation[][] = []
  for (let i = 0; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) pages.push(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST))
  return pages.length === 0 ? [[]] : pages
}
