/**
 * Review mode: the agent's answer posted as ONE pull-request review of the head the job reviewed, its findings
 * inline on the lines of that head's diff where GitHub will take them and folded into the review's body
 * otherwise (src/core/review/: parse, anchor, render). Written once over {@link ReviewApi} (gh or the App).
 *
 * Exactly once: the review's body starts with a hidden marker naming the route and the head, and before creating
 * one the pull request's reviews are searched for a review by the same account carrying it; a retry, a
 * redelivery or `jobs retry --resend-answer` finds it and posts nothing. The dispatcher confirms the job's lease
 * before delivering, and the route's concurrency group keeps two deliveries of one pull request apart.
 *
 * Never lost: GitHub refuses a whole review when one comment is off the diff (422, all or nothing) and does not
 * say which; the anchoring follows GitHub's rules so that is rare, and when it happens every inline comment is
 * folded into the body ({@link refold}) and the review is posted again, comment-free.
 */
import { DeliveryError } from '../../../core/errors.js'
import { anchorReview, refold } from '../../../core/review/anchor.js'
import type { ChangedFile } from '../../../core/review/diff-lines.js'
import type { Finding, ReviewDocument, Severity } from '../../../core/review/document.js'
import { findingKey, findingTitle } from '../../../core/review/review-memory.js'
import { findingMarker, openThreadOf, type OwnThread } from './review-threads.js'
import { REVIEW_BODY_LIMIT, renderReview } from '../../../core/review/render.js'
import { reaches } from '../../../core/review/severity.js'
import { inertReview, parseReviewAnswer } from '../../shared/review-answer.js'
import { REVIEW_PER_PAGE, type ReviewApi, type ReviewInput } from './review-api.js'
import { stickyMarker } from '../../shared/hidden-markers.js'

/** Pages of changed files read at most: 3,000 files, all GitHub lists of a pull request. */
export const MAX_FILE_PAGES = 30
/** Pages of reviews searched for the route's own before creating one: 2,000 reviews. */
export const MAX_REVIEW_PAGES = 20

/** What one review delivery is told. */
export interface PullReviewRequest {
  readonly route: string
  /** The head the job reviewed: the review's `commit_id`. */
  readonly head: string
  /** `deliver_extra.request_changes_at`: the event is `REQUEST_CHANGES` when a finding is this severe or more. */
  readonly requestChangesAt?: Severity | undefined
  /** The cap on inline comments (core default when absent). */
  readonly maxInline?: number | undefined
  /**
   * The route's open threads on the pull request (review-threads.ts): a finding one of them already holds on its
   * line is not posted again, only listed in the body as still open.
   */
  readonly openThreads?: readonly OwnThread[] | undefined
}

/** The heading of the findings an earlier review's open thread already holds. */
export const STILL_OPEN_HEADING = '### Still open from an earlier review'

/**
 * The hidden first line of a review by `route` of `head`: the sticky marker's route encoding, with the head, so
 * the reviews of one route are told apart by head and no agent text can pass for one (only the first line counts).
 */
export function pullReviewMarker(route: string, head: string): string {
  return stickyMarker(route).replace(' -->', ` head=${head.toLowerCase()} -->`)
}

/** The answer as a review document; a DeliveryError (not retried) with its issues when it does not validate. */
export function parseReview(text: string): ReviewDocument {
  return parseReviewAnswer('github_comment', text)
}

/** The review's last line: the route and the head it is of, for the people reading it. */
export function reviewFooter(route: string, head: string): string {
  return `\n\n---\n<sub>hookpilot · route \`${route}\` · reviewed head ${head}</sub>`
}

/**
 * Creates the review of `request.head` (the caller has searched for this route's review of it first, with
 * {@link findOwnReview} and {@link pullReviewMarker}). `files` reads the head's changed files (cached).
 */
export async function createPullReview(api: ReviewApi, files: () => Promise<readonly ChangedFile[]>, request: PullReviewRequest, document: ReviewDocument): Promise<{ readonly posted: true, readonly url: string }> {
  const marker = pullReviewMarker(request.route, request.head)
  const footer = reviewFooter(request.route, request.head)
  // A finding raised again on the line its open thread is on is that thread's: listed, not posted twice.
  const threads = request.openThreads ?? []
  const held = document.findings.filter((f) => openThreadOf(f, threads) !== undefined)
  const fresh = document.findings.filter((f) => openThreadOf(f, threads) === undefined)
  const posted: ReviewDocument = { ...document, summary: document.summary + stillOpen(held), findings: fresh }
  let anchored = anchorReview(inertReview(posted), await files(), request.maxInline === undefined ? {} : { maxInline: request.maxInline })
  const event = requestsChanges(document, request.requestChangesAt) ? 'REQUEST_CHANGES' : 'COMMENT'
  // Two tries at most: as anchored, then (after a 422) with every comment folded, which GitHub cannot refuse for a line.
  for (;;) {
    const rendered = renderReview(anchored, REVIEW_BODY_LIMIT - marker.length - 1 - footer.length)
    const review: ReviewInput = {
      commit_id: request.head,
      body: `${marker}\n${rendered.body}${footer}`,
      event,
      // Each comment starts with its finding's marker: the next review knows the thread as this route's, and which finding.
      comments: rendered.comments.map(({ finding, ...comment }) => ({ ...comment, body: `${findingMarker(request.route, findingKey(fresh[finding]!))}\n${comment.body}` })),
    }
    const created = await api.createReview(review)
    if (created.ok) return { posted: true, url: created.url }
    if (rendered.comments.length === 0) {
      throw new DeliveryError('github_comment', `GitHub refused the review (422): ${created.errors.join('; ') || 'no reason given'}`, { retryable: false })
    }
    // GitHub does not say which comment it refused: all are folded, so no finding is lost.
    anchored = refold(anchored, rendered.comments.map((c) => c.finding))
  }
}

/** The URL of the review by `login` whose body starts with `marker`, reading at most {@link MAX_REVIEW_PAGES} pages. */
export async function findOwnReview(api: ReviewApi, marker: string, login: string): Promise<string | undefined> {
  for (let page = 1; page <= MAX_REVIEW_PAGES; page++) {
    const rows = await api.reviewsPage(page, marker)
    const mine = rows.find((row) => row.marked && row.login === login)
    if (mine !== undefined) return mine.url
    if (rows.length < REVIEW_PER_PAGE) return undefined
  }
  return undefined
}

/** The pull request's changed files, reading at most {@link MAX_FILE_PAGES} pages. */
export async function readChangedFiles(api: ReviewApi): Promise<ChangedFile[]> {
  const all: ChangedFile[] = []
  for (let page = 1; page <= MAX_FILE_PAGES; page++) {
    const rows = await api.filesPage(page)
    all.push(...rows)
    if (rows.length < REVIEW_PER_PAGE) break
  }
  return all
}

/** The body's list of findings already held by an open thread, or nothing. */
function stillOpen(held: readonly Finding[]): string {
  if (held.length === 0) return ''
  const lines = held.map((f) => `- **${f.severity}** \`${f.path.replace(/`/g, "'")}\` line ${f.line}: ${findingTitle(f)} _(its thread is open; not posted again)_`)
  return `\n\n${STILL_OPEN_HEADING} (${held.length})\n\n${lines.join('\n')}`
}

/** Whether a finding reaches `threshold` (`critical` is the most severe). */
function requestsChanges(review: ReviewDocument, threshold: Severity | undefined): boolean {
  return threshold !== undefined && review.findings.some((f) => reaches(f, threshold))
}
