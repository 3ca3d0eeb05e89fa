/**
 * The fake GitHub's pull-request reviews: create one (`POST /pulls/N/reviews`) with GitHub's validation, list them
 * (`GET /pulls/N/reviews`) and their inline comments (`GET /pulls/N/comments`), both paged.
 *
 * The validation is what makes a test of the review flow worth having: each comment must address a line that a
 * hunk of its file's patch shows on its side at the review's `commit_id`, a range must start strictly before its
 * end and lie inside one hunk, and one comment that fails refuses the WHOLE review (422, nothing stored), with an
 * error that does not say which comment failed, as GitHub's does (docs: shared spec §3). The hunks are walked here
 * on their own, not with the gateway's parser, so a bug in that parser is not mirrored by the fake.
 */
import { jsonBody, NOT_FOUND, type FakeAnswer, type FakeRoute } from './router.js'
import { pageOf } from './pulls-files.js'
import type { FakeFile, FakeReview, FakeReviewComment } from './state.js'

const DOCS = 'https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request'
const BODY_LIMIT = 65_536
const EVENTS: Readonly<Record<string, FakeReview['state']>> = { COMMENT: 'COMMENTED', REQUEST_CHANGES: 'CHANGES_REQUESTED', APPROVE: 'APPROVED' }

/** GitHub's messages for a comment it cannot place (several are joined into one string, as GitHub joins them). */
export const REVIEW_THREAD_ERRORS = Object.freeze({
  line: 'Pull request review thread line must be part of the diff',
  hunk: 'Pull request review thread start line must be part of the same hunk as the line.',
  blank: "Pull request review thread diff hunk can't be blank",
  precede: 'Pull request review thread start line must precede the end line.',
})

/** A review in the shape GitHub's REST API gives it. */
export function restReview(review: FakeReview): Record<string, unknown> {
  return {
    id: review.id,
    node_id: `PRR_${review.id}`,
    user: { login: review.login, type: review.login.endsWith('[bot]') ? 'Bot' : 'User' },
    body: review.body,
    state: review.state,
    commit_id: review.commitId,
    html_url: `https://github.com/${review.repo}/pull/${review.number}#pullrequestreview-${review.id}`,
    pull_request_url: `https://api.github.com/repos/${review.repo}/pulls/${review.number}`,
    author_association: 'NONE',
    ...(review.state === 'PENDING' ? {} : { submitted_at: new Date(0).toISOString() }),
  }
}

/** A review comment in the shape GitHub's REST API gives it. */
export function restReviewComment(repo: string, number: number, c: FakeReviewComment): Record<string, unknown> {
  return {
    id: c.id,
    node_id: `PRRC_${c.id}`,
    pull_request_review_id: c.reviewId,
    path: c.path,
    line: c.line,
    original_line: c.line,
    side: c.side,
    start_line: c.start_line ?? null,
    original_start_line: c.start_line ?? null,
    start_side: c.start_side ?? null,
    commit_id: c.commitId,
    original_commit_id: c.commitId,
    subject_type: 'line',
    user: { login: c.login, type: c.login.endsWith('[bot]') ? 'Bot' : 'User' },
    body: c.body,
    html_url: `https://github.com/${repo}/pull/${number}#discussion_r${c.id}`,
  }
}

/** Create, list, and list the inline comments. */
export const reviewRoutes: readonly FakeRoute[] = [
  {
    method: 'GET',
    path: /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)\/reviews$/,
    answer(req, [, repo = '', number = ''], { state, account }) {
      if (state.pull(repo, Number(number)) === undefined) return NOT_FOUND
      // A pending review is seen by its author only.
      const visible = state.reviews(repo, Number(number)).filter((r) => r.state !== 'PENDING' || r.login === account?.login)
      return pageOf(req, visible, restReview)
    },
  },
  {
    method: 'GET',
    path: /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)\/comments$/,
    answer(req, [, repo = '', number = ''], { state }) {
      if (state.pull(repo, Number(number)) === undefined) return NOT_FOUND
      const comments = state.reviews(repo, Number(number)).filter((r) => r.state !== 'PENDING').flatMap((r) => r.comments)
      // Replies in threads are review comments too, placed as their thread's first and naming it (`in_reply_to_id`).
      const replies = state.threads(repo, Number(number)).flatMap((t) => t.replies.map((reply) => ({ ...t.root, id: reply.id, body: reply.body, login: reply.login, inReplyTo: reply.inReplyTo })))
      const all: (FakeReviewComment & { inReplyTo?: number })[] = [...comments, ...replies].sort((x, y) => x.id - y.id)
      return pageOf(req, all, (c) => ({ ...restReviewComment(repo, Number(number), c), ...(c.inReplyTo === undefined ? {} : { in_reply_to_id: c.inReplyTo }) }))
    },
  },
  {
    method: 'POST',
    path: /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)\/reviews$/,
    answer(req, [, repo = '', number = ''], { state, account, note }) {
      const pull = state.pull(repo, Number(number))
      if (pull === undefined) return NOT_FOUND
      const parsed = jsonBody(req)
      if (!parsed.ok) return parsed.answer
      const { commit_id: commitId = pull.head, body, event, comments = [] } = parsed.value
      const login = account?.login ?? ''
      if (typeof commitId !== 'string') return refused(['commit_id is not a string'])
      if (event !== undefined && (typeof event !== 'string' || EVENTS[event] === undefined)) return refused([`event ${JSON.stringify(event)} is not one of APPROVE, REQUEST_CHANGES, COMMENT`])
      if (body !== undefined && typeof body !== 'string') return refused(['body is not a string'])
      // Documented as required for these two; the fake takes the stricter reading (spec §3).
      if ((event === 'COMMENT' || event === 'REQUEST_CHANGES') && (body ?? '').trim() === '') return refused(['Body can\'t be blank'])
      if (typeof body === 'string' && Array.from(body).length > BODY_LIMIT) return refused([`Body is too long (maximum is ${BODY_LIMIT} characters)`])
      if (state.reviews(repo, pull.number).some((r) => r.state === 'PENDING' && r.login === login)) return refused(['User can only have one pending review per pull request'])
      if (!Array.isArray(comments)) return refused(['comments is not an array'])
      const files = state.files(repo, pull.number, commitId) ?? []
      const checked = comments.map((comment: unknown) => checkComment(comment, files))
      const errors = [...new Set(checked.flatMap((c) => (typeof c === 'string' ? [c] : [])))]
      // All or nothing: one misplaced comment, and no review, no comment, no body is stored.
      if (errors.length > 0) {
        note(`refused a review on ${repo}#${number}: ${errors.join('; ')}`)
        return refused([joined(errors)])
      }
      const placed = checked.filter((c): c is Omit<FakeReviewComment, 'id' | 'reviewId' | 'commitId' | 'login'> => typeof c !== 'string')
      const review = state.createReview({ repo, number: pull.number, login, body: body ?? '', state: event === undefined ? 'PENDING' : EVENTS[event]!, commitId }, placed)
      // GitHub accepts a suggestion on a removed line but it cannot be applied; the gateway must never send one.
      if (placed.some((c) => c.side === 'LEFT' && /^`{3,}suggestion/m.test(c.body))) note('FLAG: a suggestion on a LEFT line (cannot be applied)')
      note(`created review ${review.id} (${review.state}, ${placed.length} comments) on ${repo}#${number} at ${commitId.slice(0, 7)}`)
      return [200, restReview(review)]
    },
  },
]

function refused(errors: readonly string[]): FakeAnswer {
  return [422, { message: 'Unprocessable Entity', errors, documentation_url: DOCS, status: '422' }]
}

/** Several messages as GitHub joins them: "A and B", "A, B, and C". */
function joined(errors: readonly string[]): string {
  if (errors.length <= 2) return errors.join(' and ')
  return `${errors.slice(0, -1).join(', ')}, and ${errors.at(-1)!}`
}

type Side = 'LEFT' | 'RIGHT'

/** A comment placed, or the message GitHub refuses it with. */
function checkComment(value: unknown, files: readonly FakeFile[]): Omit<FakeReviewComment, 'id' | 'reviewId' | 'commitId' | 'login'> | string {
  if (value === null || typeof value !== 'object') return 'Invalid comment'
  const c = value as Record<string, unknown>
  const side: unknown = c['side'] ?? 'RIGHT'
  const startSide: unknown = c['start_side'] ?? (c['start_line'] === undefined ? undefined : side)
  const { path, line, body, start_line: startLine } = c
  if (typeof path !== 'string' || typeof body !== 'string' || typeof line !== 'number') return 'Line could not be resolved'
  if (side !== 'LEFT' && side !== 'RIGHT') return 'Line could not be resolved'
  if (startLine !== undefined && (typeof startLine !== 'number' || (startSide !== 'LEFT' && startSide !== 'RIGHT'))) return 'Line could not be resolved'
  if (typeof startLine === 'number' && startLine >= line && startSide === side) return REVIEW_THREAD_ERRORS.precede
  const file = files.find((f) => f.filename === path)
  if (file?.patch === undefined) return REVIEW_THREAD_ERRORS.blank
  const hunks = hunksOf(file.patch)
  const end = hunks.findIndex((h) => h[side].has(line))
  if (end === -1) return REVIEW_THREAD_ERRORS.line
  if (typeof startLine === 'number') {
    const start = hunks.findIndex((h) => h[startSide as Side].has(startLine))
    if (start === -1) return REVIEW_THREAD_ERRORS.line
    if (start !== end) return REVIEW_THREAD_ERRORS.hunk
  }
  return {
    path,
    line,
    side,
    body,
    ...(typeof startLine === 'number' ? { start_line: startLine, start_side: startSide as Side } : {}),
  }
}

/** Each hunk's commentable line numbers per side: RIGHT holds added and context lines, LEFT removed and context. */
function hunksOf(patch: string): Record<Side, Set<number>>[] {
  const hunks: Record<Side, Set<number>>[] = []
  let oldLine = 0
  let newLine = 0
  let current: Record<Side, Set<number>> | undefined
  for (const text of patch.split('\n')) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text)
    if (header !== null) {
      oldLine = Number(header[1])
      newLine = Number(header[2])
      current = { LEFT: new Set(), RIGHT: new Set() }
      hunks.push(current)
    } else if (current === undefined || text.startsWith('\\')) {
      continue
    } else if (text.startsWith('+')) {
      current.RIGHT.add(newLine++)
    } else if (text.startsWith('-')) {
      current.LEFT.add(oldLine++)
    } else {
      current.RIGHT.add(newLine++)
      current.LEFT.add(oldLine++)
    }
  }
  return hunks
}
