/**
 * The fake GitHub's review threads: a reply over REST (`POST /pulls/N/comments/{id}/replies`), and over GraphQL
 * the pull request's `reviewThreads` (paged, 100 at most) and the `resolveReviewThread` mutation, in GitHub's
 * shapes (shared spec §5). What the fake must get right because clients get it wrong:
 *
 * - a GitHub App is `my-app[bot]` over REST but `my-app` (`__typename: "Bot"`) over GraphQL;
 * - an outdated thread has `line: null` and keeps `originalLine`;
 * - a GraphQL failure is an HTTP 200 with `errors[]` (and `data` null or partial), never a 4xx.
 */
import { jsonBody, NOT_FOUND, type FakeAccount, type FakeRoute } from './router.js'
import { restReviewComment } from './reviews.js'
import type { FakeGithubState, FakeThread } from './state.js'

/** Threads per page at most (GitHub's cap on `first`). */
const MAX_FIRST = 100

/** `POST /repos/O/R/pulls/N/comments/{comment_id}/replies`. */
export const reviewThreadRoutes: readonly FakeRoute[] = [
  {
    method: 'POST',
    path: /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)\/comments\/(\d+)\/replies$/,
    answer(req, [, repo = '', number = '', id = ''], { state, account, note }) {
      if (state.pull(repo, Number(number)) === undefined) return NOT_FOUND
      const parsed = jsonBody(req)
      if (!parsed.ok) return parsed.answer
      const body = parsed.value['body']
      if (typeof body !== 'string' || body.trim() === '') return [422, { message: 'Validation Failed', errors: [{ resource: 'PullRequestReviewComment', code: 'missing_field', field: 'body' }], status: '422' }]
      const reply = state.reply(repo, Number(number), Number(id), body, account?.login ?? '')
      if (reply === undefined) return NOT_FOUND
      const thread = state.threads(repo, Number(number)).find((t) => t.root.id === reply.inReplyTo)!
      note(`replied ${reply.id} in thread ${thread.id} on ${repo}#${number}`)
      return [201, { ...restReviewComment(repo, Number(number), { ...thread.root, id: reply.id, body: reply.body, login: reply.login }), in_reply_to_id: reply.inReplyTo }]
    },
  },
]

/** A login as GraphQL shows it: an App without its `[bot]` suffix, typed `Bot`. */
function author(login: string): { login: string, __typename: 'Bot' | 'User' } {
  return login.endsWith('[bot]') ? { login: login.slice(0, -'[bot]'.length), __typename: 'Bot' } : { login, __typename: 'User' }
}

/** A thread in GraphQL's `PullRequestReviewThread` shape, its first `first` comments shown. */
function graphqlThread(thread: FakeThread, first: number): Record<string, unknown> {
  const { root } = thread
  const comments = [
    { id: `PRRC_${root.id}`, databaseId: root.id, body: root.body, author: author(root.login) },
    ...thread.replies.map((r) => ({ id: `PRRC_${r.id}`, databaseId: r.id, body: r.body, author: author(r.login) })),
  ]
  return {
    id: thread.id,
    isResolved: thread.resolved,
    isOutdated: thread.outdated,
    isCollapsed: thread.resolved,
    path: root.path,
    line: thread.outdated ? null : root.line,
    originalLine: root.line,
    startLine: thread.outdated ? null : root.start_line ?? null,
    originalStartLine: root.start_line ?? null,
    diffSide: root.side,
    startDiffSide: root.start_side ?? null,
    subjectType: 'LINE',
    resolvedBy: thread.resolvedBy === null ? null : author(thread.resolvedBy),
    viewerCanResolve: !thread.resolved,
    viewerCanUnresolve: thread.resolved,
    viewerCanReply: true,
    comments: { totalCount: comments.length, nodes: comments.slice(0, first) },
  }
}

/** The number a query asks with `first: N` (a literal) inside `field(...)`, else `fallback`. */
function firstOf(query: string, field: string, fallback: number): number {
  const match = new RegExp(`${field}\\s*\\(([^)]*)\\)`).exec(query)
  const first = match === null ? undefined : /\bfirst\s*:\s*(\d+)/.exec(match[1] ?? '')?.[1]
  return first === undefined ? fallback : Number(first)
}

/**
 * The pull request's review threads, for a document asking `reviewThreads`: the variables name the repository
 * (`owner`, `name` or `repo`), the pull request (`number`) and the page (`after`, a cursor this fake gave).
 */
export function reviewThreadsQuery(state: FakeGithubState, query: string, variables: Record<string, unknown>, account: FakeAccount | undefined): unknown {
  const text = (value: unknown) => (typeof value === 'string' ? value : '')
  const owner = text(variables['owner'])
  const name = text(variables['name'] ?? variables['repo'])
  const repo = `${owner}/${name}`
  if (!state.hasRepo(repo) || (account?.repos !== undefined && !account.repos.has(repo))) {
    return { data: { repository: null }, errors: [{ type: 'NOT_FOUND', path: ['repository'], message: `Could not resolve to a Repository with the name '${repo}'.` }] }
  }
  const pull = state.pull(repo, Number(variables['number']))
  if (pull === undefined) {
    return { data: { repository: { pullRequest: null } }, errors: [{ type: 'NOT_FOUND', path: ['repository', 'pullRequest'], message: `Could not resolve to a PullRequest with the number of ${String(variables['number'])}.` }] }
  }
  const first = firstOf(query, 'reviewThreads', MAX_FIRST)
  if (first > MAX_FIRST) return { data: null, errors: [{ type: 'EXCESSIVE_PAGINATION', message: `Requesting ${first} records on the \`reviewThreads\` connection exceeds the \`first\` limit of ${MAX_FIRST} records.` }] }
  const after = typeof variables['after'] === 'string' ? Number(Buffer.from(variables['after'], 'base64').toString('utf8').replace(/^cursor:/, '')) : 0
  const all = state.threads(repo, pull.number)
  const page = all.slice(after, after + first)
  const end = after + page.length
  return {
    data: {
      repository: {
        pullRequest: {
          reviewThreads: {
            totalCount: all.length,
            pageInfo: { hasNextPage: end < all.length, endCursor: page.length === 0 ? null : Buffer.from(`cursor:${end}`).toString('base64') },
            nodes: page.map((thread) => graphqlThread(thread, firstOf(query, 'comments', 100))),
          },
        },
      },
    },
  }
}

/** `resolveReviewThread(input: {threadId})`: the thread, resolved by the caller (who needs to see its repository). */
export function resolveReviewThread(state: FakeGithubState, variables: Record<string, unknown>, account: FakeAccount | undefined, note: (text: string) => void): unknown {
  const input = (variables['input'] ?? {}) as { threadId?: unknown }
  // The id as the document passes it: `input: {threadId: $id}` (or `$threadId`), or a whole `$input`.
  const given = [variables['id'], variables['threadId'], input.threadId].find((value) => typeof value === 'string')
  const id = typeof given === 'string' ? given : ''
  const thread = state.thread(id)
  if (thread === undefined || (account?.repos !== undefined && !account.repos.has(thread.repo))) {
    return { data: { resolveReviewThread: null }, errors: [{ type: 'NOT_FOUND', path: ['resolveReviewThread'], message: `Could not resolve to a node with the global id of '${id}'` }] }
  }
  if (!thread.resolved) {
    thread.resolved = true
    thread.resolvedBy = account?.login ?? ''
    note(`resolved thread ${thread.id} on ${thread.repo}#${thread.number}`)
  }
  return { data: { resolveReviewThread: { thread: { id: thread.id, isResolved: true } } } }
}
