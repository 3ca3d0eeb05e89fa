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
  /** The pull request's head and base now. */
  pullCommits(): Promise<PullCommits>
  /** How `head` relates to `base` (`GET /compare/BASE...HEAD`). */
  compare(base: string, head: string): Promise<CompareStatus>
  /** A page of the pull request's review threads (GraphQL), from the start or after a cursor. */
  threadsPage(after: string | undefined): Promise<ThreadPage>
  /** Resolves a review thread (GraphQL `resolveReviewThread`). */
  resolveThread(id: string): Promise<void>
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

/** A pull request's head and base commits now (`GET /pulls/N`: `head.sha`, `base.sha`). */
export interface PullCommits {
  readonly head: string
  readonly base: string
}

/**
 * How `head` relates to `base`, GitHub's compare `status`: `ahead` when `base` is an ancestor of `head` (plain new
 * commits), `diverged` or `behind` when history was rewritten, and `missing` when GitHub knows no such commit (404:
 * a force-push left it unreachable).
 */
export type CompareStatus = 'ahead' | 'behind' | 'diverged' | 'identical' | 'missing'

/** One review thread, as the resolution of old findings reads it. */
export interface ThreadRow {
  /** GraphQL's node id (`PRRT_…`), what `resolveReviewThread` takes. */
  readonly id: string
  readonly resolved: boolean
  readonly outdated: boolean
  readonly path: string
  /** Its line on the pull request's head now; null when outdated. */
  readonly line: number | null
  readonly side: Side
  /** Each comment's author, the thread's first; GraphQL's logins (an App's without `[bot]`). */
  readonly authors: readonly string[]
  /** The first comment's first line: where the gateway's finding marker is. */
  readonly firstLine: string
  /** Whether the thread has more comments than {@link THREAD_COMMENTS} (read as: someone replied). */
  readonly more: boolean
}

/** A page of threads and the cursor of the next, when there is one. */
export interface ThreadPage {
  readonly threads: readonly ThreadRow[]
  readonly next?: string | undefined
}

/** Comments of each thread read: the first is the finding, any other is a reply. */
export const THREAD_COMMENTS = 20

/** GraphQL: a page of a pull request's review threads (GitHub's `first` cap is 100). */
export const REVIEW_THREADS_QUERY = `query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved isOutdated path line diffSide comments(first: ${THREAD_COMMENTS}) { totalCount nodes { body author { login } } } }
      }
    }
  }
}`

/** GraphQL: resolves one thread. */
export const RESOLVE_THREAD_MUTATION = 'mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } } }'

/** The page in `data` (a {@link REVIEW_THREADS_QUERY} answer's `data`); undefined when it is not one. */
export function threadPageOf(data: unknown): ThreadPage | undefined {
  const connection = (data as { repository?: { pullRequest?: { reviewThreads?: unknown } | null } | null } | null)?.repository?.pullRequest?.reviewThreads
  if (typeof connection !== 'object' || connection === null) return undefined
  const { pageInfo, nodes } = connection as { pageInfo?: { hasNextPage?: unknown, endCursor?: unknown }, nodes?: unknown }
  if (!Array.isArray(nodes)) return undefined
  const threads = nodes.flatMap((node: unknown): ThreadRow[] => {
    const t = (node ?? {}) as { id?: unknown, isResolved?: unknown, isOutdated?: unknown, path?: unknown, line?: unknown, diffSide?: unknown, comments?: { totalCount?: unknown, nodes?: unknown } }
    if (typeof t.id !== 'string' || typeof t.path !== 'string') return []
    const comments = Array.isArray(t.comments?.nodes) ? (t.comments.nodes as { body?: unknown, author?: { login?: unknown } | null }[]) : []
    const first = comments[0]?.body
    return [{
      id: t.id,
      resolved: t.isResolved === true,
      outdated: t.isOutdated === true,
      path: t.path,
      line: typeof t.line === 'number' ? t.line : null,
      side: t.diffSide === 'LEFT' ? 'LEFT' : 'RIGHT',
      // A deleted account is `author: null` (GitHub's "ghost"): a person, not the gateway.
      authors: comments.map((c) => (typeof c.author?.login === 'string' ? c.author.login : 'ghost')),
      firstLine: typeof first === 'string' ? first.split('\n', 1)[0] ?? '' : '',
      more: typeof t.comments?.totalCount === 'number' && t.comments.totalCount > comments.length,
    }]
  })
  const next = pageInfo?.hasNextPage === true && typeof pageInfo.endCursor === 'string' ? pageInfo.endCursor : undefined
  return { threads, ...(next === undefined ? {} : { next }) }
}
