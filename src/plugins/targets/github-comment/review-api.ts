/**
 * The operations review mode does on a pull request, behind one interface with two implementations, as
 * {@link CommentApi} is: through `gh api` (gh-reviews.ts) or through the REST API as a GitHub App
 * (app-comments.ts). The review flow (pull-review.ts) is written once, over this.
 */
import type { ChangedFile } from '../../../core/review/diff-lines.js'
import type { Side } from '../../../core/review/document.js'

/** Files and reviews per page read: GitHub's maximum. */
export const REVIEW_PER_PAGE = 100

/** A review as the "already posted?" search sees it: its author, whether its body starts with the marker, its URL. */
export interface ReviewRow {
  readonly login: string
  readonly marked: boolean
  readonly url: string
}

/** One inline comment as GitHub's create-review call takes it. */
export interface ReviewCommentInput {
  readonly path: string
  readonly line: number
  readonly side: Side
  readonly start_line?: number
  readonly start_side?: Side
  readonly body: string
}

/** The body of `POST /repos/O/R/pulls/N/reviews`. */
export interface ReviewInput {
  readonly commit_id: string
  readonly body: string
  readonly event: 'COMMENT' | 'REQUEST_CHANGES'
  readonly comments: readonly ReviewCommentInput[]
}

/** A created review's URL, or GitHub's 422 refusal with its `errors` (as strings; GitHub names no comment). */
export type CreatedReview = { readonly ok: true, readonly url: string } | { readonly ok: false, readonly errors: readonly string[] }

/** One pull request's reviews and changed files, as one account. Failures are DeliveryErrors, as CommentApi's. */
export interface ReviewApi {
  /** Page `page` (from 1) of {@link REVIEW_PER_PAGE} changed files at the pull request's head. */
  filesPage(page: number): Promise<readonly ChangedFile[]>
  /** Page `page` (from 1) of {@link REVIEW_PER_PAGE} reviews, oldest first. */
  reviewsPage(page: number, marker: string): Promise<readonly ReviewRow[]>
  /** Creates a submitted review; a 422 is answered (not thrown) so the caller can fold the comments and try again. */
  createReview(review: ReviewInput): Promise<CreatedReview>
}

/** GitHub's `errors[]` as strings: plain strings kept, objects `{field, message}` written as `field: message`. */
export function errorStrings(body: unknown): string[] {
  const errors = (body as { errors?: unknown } | null)?.errors
  if (!Array.isArray(errors)) return []
  return errors.map((e: unknown) => {
    if (typeof e === 'string') return e
    const { field, message } = (e ?? {}) as { field?: unknown, message?: unknown }
    return [field, message].filter((part) => typeof part === 'string').join(': ')
  })
}
