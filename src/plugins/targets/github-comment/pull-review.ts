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
import type { ReviewDocument, Severity } from '../../../core/review/document.js'
import { REVIEW_BODY_LIMIT, renderReview } from '../../../core/review/render.js'
import { reaches } from '../../../core/review/severity.js'
import { inertReview, parseReviewAnswer } from '../../shared/review-answer.js'
import { reviewMarker } from './comment-body.js'
import { REVIEW_PER_PAGE, type ReviewApi, type ReviewInput } from './review-api.js'

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
}

/**
 * The hidden first line of a review by `route` of `head`: the sticky marker's route encoding, with the head, so
 * the reviews of one route are told apart by head and no agent text can pass for one (only the first line counts).
 */
export function pullReviewMarker(route: string, head: string): string {
  return reviewMarker(route).replace(' -->', ` head=${head.toLowerCase()} -->`)
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
  let anchored = anchorReview(inertReview(document), await files(), request.maxInline === undefined ? {} : { maxInline: request.maxInline })
  const event = requestsChanges(document, request.requestChangesAt) ? 'REQUEST_CHANGES' : 'COMMENT'
  // Two tries at most: as anchored, then (after a 422) with every comment folded, which GitHub cannot refuse for a line.
  for (;;) {
    const rendered = renderReview(anchored, REVIEW_BODY_LIMIT - marker.length - 1 - footer.length)
    const review: ReviewInput = {
      commit_id: request.head,
      body: `${marker}\n${rendered.body}${footer}`,
      event,
      comments: rendered.comments.map(({ finding: _finding, ...comment }) => comment),
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

/** Whether a finding reaches `threshold` (`critical` is the most severe). */
function requestsChanges(review: ReviewDocument, threshold: Severity | undefined): boolean {
  return threshold !== undefined && review.findings.some((f) => reaches(f, threshold))
}
