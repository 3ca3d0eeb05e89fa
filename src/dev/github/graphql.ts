/**
 * The fake GitHub's GraphQL endpoint, for the documents gh sends in the review flow: the viewer (`gh auth
 * status`), the pull request (`gh pr view --json headRefOid`, `gh pr comment` looking up its subject) and
 * `addComment` (`gh pr comment`); and for the review target's: a pull request's `reviewThreads` and
 * `resolveReviewThread` (review-threads.ts).
 * It does not parse GraphQL: it tells the documents apart by what they ask, and answers in GitHub's shape,
 * errors included (`NOT_FOUND` for an unknown repository or pull request).
 */
import { issueCommentGist } from './issue-comments.js'
import { resolveReviewThread, reviewThreadsQuery } from './review-threads.js'
import { jsonBody, type FakeRoute } from './router.js'
import type { FakeGithubState } from './state.js'

interface GraphqlRequest {
  readonly query?: unknown
  readonly variables?: Record<string, unknown>
}

/** `POST /graphql`. */
export const graphqlRoutes: readonly FakeRoute[] = [
  {
    method: 'POST',
    path: /^\/graphql$/,
    answer(req, _match, { state, account, note }) {
      const parsed = jsonBody(req)
      if (!parsed.ok) return parsed.answer
      const { query, variables = {} } = parsed.value as GraphqlRequest
      if (typeof query !== 'string') return [200, { errors: [{ message: 'A query attribute must be specified and must be a string.' }] }]
      // `gh auth status` asks who the token stands for.
      if (/\bviewer\b/.test(query)) return [200, { data: { viewer: { login: account?.login } } }]
      if (query.includes('resolveReviewThread')) return [200, resolveReviewThread(state, variables, account, note)]
      if (query.includes('reviewThreads')) return [200, reviewThreadsQuery(state, query, variables, account)]
      if (query.includes('addComment')) return [200, addComment(state, variables, account?.login ?? '', note)]
      if (query.includes('pullRequest')) return [200, pullRequest(state, variables)]
      return [200, { errors: [{ message: 'the fake GitHub answers only the viewer, pull request, addComment, reviewThreads and resolveReviewThread documents' }] }]
    },
  },
]

function addComment(state: FakeGithubState, variables: Record<string, unknown>, login: string, note: (text: string) => void): unknown {
  const input = (variables['input'] ?? {}) as { subjectId?: unknown; body?: unknown }
  const subjectId = typeof input.subjectId === 'string' ? input.subjectId : ''
  const [repo = '', number = ''] = subjectId.replace(/^PR_/, '').split('#')
  if (state.pull(repo, Number(number)) === undefined) return notFound('Could not resolve to a node with the global id of', subjectId, 'addComment')
  if (typeof input.body !== 'string') return { data: null, errors: [{ message: 'Argument body on InputObject AddCommentInput is required.' }] }
  const comment = state.createComment(repo, Number(number), input.body, login, true)
  note(`created comment ${comment.id} on ${repo}#${number}: ${issueCommentGist(comment.body)}`)
  return { data: { addComment: { commentEdge: { node: { url: `https://github.com/${repo}/pull/${number}#issuecomment-${comment.id}` } } } } }
}

function pullRequest(state: FakeGithubState, variables: Record<string, unknown>): unknown {
  const { owner, repo, pr_number: number } = variables as { owner?: unknown; repo?: unknown; pr_number?: unknown }
  const fullName = `${String(owner)}/${String(repo)}`
  if (!state.hasRepo(fullName)) return notFound('Could not resolve to a Repository with the name', fullName, 'repository')
  const pull = state.pull(fullName, Number(number))
  if (pull === undefined) return notFound('Could not resolve to a PullRequest with the number of', String(number), 'repository.pullRequest')
  const url = `https://github.com/${fullName}/pull/${pull.number}`
  // The node id carries the pull request, so addComment (which gets only the id) knows where to write.
  return { data: { repository: { pullRequest: { id: `PR_${fullName}#${pull.number}`, url, number: pull.number, headRefOid: pull.head } } } }
}

function notFound(what: string, name: string, path: string): unknown {
  return { data: null, errors: [{ type: 'NOT_FOUND', path: path.split('.'), message: `${what} '${name}'.` }] }
}
