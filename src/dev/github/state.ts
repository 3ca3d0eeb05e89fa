/**
 * What the fake GitHub holds, in memory: pull requests (their head, which a user or a test moves) and their
 * comments, and every comment written through the API, in order (what a test asserts on).
 */
import { createFakeRepositoryState, type FakeRepositoryState } from './repository-state.js'

/** A pull request, as the fake holds it. */
export interface FakePull {
  readonly repo: string
  readonly number: number
  head: string
  /** The base branch's commit (`base.sha`); undefined until a test sets it. */
  base?: string | undefined
}

/**
 * A review thread: an inline comment of a review starts one, replies join it. GitHub has no REST object for it;
 * GraphQL's `PullRequestReviewThread` shows it (review-threads.ts).
 */
export interface FakeThread {
  /** GraphQL's node id, `PRRT_…`. */
  readonly id: string
  readonly repo: string
  readonly number: number
  /** The review comment that started it. */
  readonly root: FakeReviewComment
  readonly replies: FakeReply[]
  resolved: boolean
  resolvedBy: string | null
  /**
   * Whether later commits changed its lines (GitHub then shows `line: null` and keeps `originalLine`). The fake
   * does not follow lines across commits: a test marks a thread outdated ({@link FakeGithubState.outdateThread}).
   */
  outdated: boolean
}

/** A reply in a review thread (`POST /pulls/N/comments/{id}/replies`). */
export interface FakeReply {
  readonly id: number
  readonly login: string
  readonly body: string
  readonly inReplyTo: number
}

/** A comment on a pull request, as the fake holds it. */
export interface FakeComment {
  readonly id: number
  readonly repo: string
  readonly number: number
  readonly login: string
  body: string
  /** How many times it was edited. */
  edits: number
}

/** One comment written through the API, in order. */
export interface CommentWrite {
  readonly kind: 'created' | 'edited'
  readonly id: number
  readonly repo: string
  readonly number: number
  readonly login: string
  readonly body: string
}

/** One changed file of a pull request at a head, in GitHub's `GET /pulls/{n}/files` shape (the fields a test sets). */
export interface FakeFile {
  readonly filename: string
  readonly status: 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged'
  /** The hunks, GitHub's format (no `---`/`+++` header); absent for a binary file or one too large to show. */
  readonly patch?: string | undefined
  readonly previous_filename?: string | undefined
}

/** An inline comment of a review, as the fake holds it. */
export interface FakeReviewComment {
  readonly id: number
  readonly reviewId: number
  readonly path: string
  readonly line: number
  readonly side: 'LEFT' | 'RIGHT'
  readonly start_line?: number | undefined
  readonly start_side?: 'LEFT' | 'RIGHT' | undefined
  readonly body: string
  readonly commitId: string
  readonly login: string
}

/** A submitted pull-request review, as the fake holds it. */
export interface FakeReview {
  readonly id: number
  readonly repo: string
  readonly number: number
  readonly login: string
  readonly body: string
  readonly state: 'COMMENTED' | 'CHANGES_REQUESTED' | 'APPROVED' | 'PENDING'
  readonly commitId: string
  readonly comments: readonly FakeReviewComment[]
}

/** A check run's annotation, as GitHub takes it. */
export interface FakeAnnotation {
  readonly path: string
  readonly start_line: number
  readonly end_line: number
  readonly annotation_level: 'notice' | 'warning' | 'failure'
  readonly message: string
  readonly title?: string | undefined
}

/** A check run, as the fake holds it (updated in place by PATCH; annotations appended). */
export interface FakeCheckRun {
  readonly id: number
  readonly repo: string
  readonly name: string
  readonly headSha: string
  readonly login: string
  /** The status it was created with (a test tells a run started `in_progress` from one created completed). */
  readonly createdAs: 'queued' | 'in_progress' | 'completed'
  status: 'queued' | 'in_progress' | 'completed'
  conclusion: string | null
  detailsUrl: string | null
  /** The integrator's reference for the run (`external_id`). */
  externalId: string | null
  /** ISO 8601 times, as GitHub gives them: when the run started, and when it completed (set at completion when not sent). */
  startedAt: string | null
  completedAt: string | null
  output: { title: string, summary: string, text?: string | undefined } | null
  readonly annotations: FakeAnnotation[]
}

/** A commit status, as the fake holds it (newest last; the newest of a context wins). */
export interface FakeStatus {
  readonly id: number
  readonly repo: string
  readonly sha: string
  readonly state: 'error' | 'failure' | 'pending' | 'success'
  readonly context: string
  readonly description: string | null
  readonly targetUrl: string | null
  readonly login: string
}

/** The fake's state; every area of the API reads and writes this one. */
export interface FakeGithubState {
  /** Files at commits, pull requests' details, reactions, permissions (repository.ts). */
  readonly repository: FakeRepositoryState
  /** Declares a pull request, or moves its head. */
  setHead(repo: string, number: number, head: string): FakePull
  pull(repo: string, number: number): FakePull | undefined
  /** Whether any pull request of `repo` was declared (GitHub tells an unknown repository from an unknown PR). */
  hasRepo(repo: string): boolean
  pulls(): FakePull[]
  /** A new comment; `recorded` ones (written through the API) also go to {@link writes}. */
  createComment(repo: string, number: number, body: string, login: string, recorded: boolean): FakeComment
  editComment(comment: FakeComment, body: string): FakeComment
  comment(repo: string, id: number): FakeComment | undefined
  comments(repo: string, number: number): FakeComment[]
  writes(): CommentWrite[]
  /** Sets the changed files a pull request shows at `head` (what `GET /pulls/{n}/files` lists while that is its head). */
  setFiles(repo: string, number: number, head: string, files: readonly FakeFile[]): void
  /** The changed files at `head`; undefined when none were set. */
  files(repo: string, number: number, head: string): readonly FakeFile[] | undefined
  /** Stores a review and its comments (each given its id). */
  createReview(review: Omit<FakeReview, 'id' | 'comments'>, comments: readonly Omit<FakeReviewComment, 'id' | 'reviewId' | 'commitId' | 'login'>[]): FakeReview
  /** A pull request's reviews, oldest first. */
  reviews(repo: string, number: number): FakeReview[]
  /** Stores a new check run (given its id). */
  createCheckRun(run: Omit<FakeCheckRun, 'id' | 'annotations'>): FakeCheckRun
  /** A repository's check runs, oldest first. */
  checkRuns(repo: string): FakeCheckRun[]
  /** Stores a commit status (given its id). */
  createStatus(status: Omit<FakeStatus, 'id'>): FakeStatus
  /** A repository's commit statuses, oldest first. */
  statuses(repo: string): FakeStatus[]
  /** Sets a pull request's base commit (`base.sha`). */
  setBase(repo: string, number: number, base: string): void
  /** Adds a commit with its parents to the repository's graph (what the compare API walks). */
  addCommit(repo: string, sha: string, parents: readonly string[]): void
  /** The parents of a commit the graph knows; undefined for an unknown one. */
  parents(repo: string, sha: string): readonly string[] | undefined
  /** A pull request's review threads, oldest first. */
  threads(repo: string, number: number): FakeThread[]
  /** The thread of a node id. */
  thread(id: string): FakeThread | undefined
  /** A reply to the thread of review comment `commentId` (the first or any other of it); undefined when there is none. */
  reply(repo: string, number: number, commentId: number, body: string, login: string): FakeReply | undefined
  /** Marks a thread outdated (its lines changed since), as GitHub does when later commits touch them. */
  outdateThread(id: string): void
}

/** An empty state; comment ids start at 1001, as small fixed numbers read well in a log. */
export function createFakeGithubState(): FakeGithubState {
  const pulls = new Map<string, FakePull>()
  const comments: FakeComment[] = []
  const writes: CommentWrite[] = []
  let nextId = 1001
  const files = new Map<string, readonly FakeFile[]>()
  const reviews: FakeReview[] = []
  let nextReviewId = 5001
  let nextReviewCommentId = 7001
  const checkRuns: FakeCheckRun[] = []
  const statuses: FakeStatus[] = []
  const threads: FakeThread[] = []
  const graph = new Map<string, Map<string, readonly string[]>>()
  const record = (kind: CommentWrite['kind'], c: FakeComment): FakeComment => {
    writes.push({ kind, id: c.id, repo: c.repo, number: c.number, login: c.login, body: c.body })
    return c
  }
  return {
    repository: createFakeRepositoryState(),
    setHead(repo, number, head) {
      const key = `${repo}#${number}`
      const pull = pulls.get(key) ?? { repo, number, head }
      pull.head = head
      pulls.set(key, pull)
      return pull
    },
    pull: (repo, number) => pulls.get(`${repo}#${number}`),
    hasRepo: (repo) => [...pulls.values()].some((p) => p.repo === repo),
    pulls: () => [...pulls.values()],
    createComment(repo, number, body, login, recorded) {
      const comment = { id: nextId++, repo, number, login, body, edits: 0 }
      comments.push(comment)
      return recorded ? record('created', comment) : comment
    },
    editComment(comment, body) {
      comment.body = body
      comment.edits += 1
      return record('edited', comment)
    },
    comment: (repo, id) => comments.find((c) => c.repo === repo && c.id === id),
    comments: (repo, number) => comments.filter((c) => c.repo === repo && c.number === number),
    writes: () => [...writes],
    setFiles: (repo, number, head, list) => void files.set(`${repo}#${number}@${head}`, [...list]),
    files: (repo, number, head) => files.get(`${repo}#${number}@${head}`),
    createReview(fields, comments) {
      const id = nextReviewId++
      const review: FakeReview = {
        ...fields,
        id,
        comments: comments.map((c) => ({ ...c, id: nextReviewCommentId++, reviewId: id, commitId: fields.commitId, login: fields.login })),
      }
      reviews.push(review)
      // A submitted review's comments each start a thread (a pending one's are its author's draft).
      if (review.state !== 'PENDING') {
        for (const root of review.comments) threads.push({ id: `PRRT_kwDO${root.id}`, repo: review.repo, number: review.number, root, replies: [], resolved: false, resolvedBy: null, outdated: false })
      }
      return review
    },
    reviews: (repo, number) => reviews.filter((r) => r.repo === repo && r.number === number),
    createCheckRun(fields) {
      const run: FakeCheckRun = { ...fields, id: 9001 + checkRuns.length, annotations: [] }
      checkRuns.push(run)
      return run
    },
    checkRuns: (repo) => checkRuns.filter((r) => r.repo === repo),
    createStatus(fields) {
      const status: FakeStatus = { ...fields, id: 3001 + statuses.length }
      statuses.push(status)
      return status
    },
    statuses: (repo) => statuses.filter((s) => s.repo === repo),
    setBase(repo, number, base) {
      const pull = pulls.get(`${repo}#${number}`)
      if (pull !== undefined) pull.base = base
    },
    addCommit(repo, sha, parents) {
      const commits = graph.get(repo) ?? new Map<string, readonly string[]>()
      commits.set(sha, [...parents])
      graph.set(repo, commits)
    },
    parents: (repo, sha) => graph.get(repo)?.get(sha),
    threads: (repo, number) => threads.filter((t) => t.repo === repo && t.number === number),
    thread: (id) => threads.find((t) => t.id === id),
    reply(repo, number, commentId, body, login) {
      const thread = threads.find((t) => t.repo === repo && t.number === number && (t.root.id === commentId || t.replies.some((r) => r.id === commentId)))
      if (thread === undefined) return undefined
      const reply: FakeReply = { id: nextReviewCommentId++, login, body, inReplyTo: thread.root.id }
      thread.replies.push(reply)
      return reply
    },
    outdateThread(id) {
      const thread = threads.find((t) => t.id === id)
      if (thread !== undefined) thread.outdated = true
    },
  }
}
