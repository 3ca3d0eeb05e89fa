/**
 * The fake GitHub's commit statuses: `POST /repos/O/R/statuses/SHA` with GitHub's validation (docs: shared spec
 * §7): `state` is one of `error`, `failure`, `pending`, `success`; `context` defaults to `default`; a
 * `description` over 140 characters is refused with GitHub's object-shaped error; at most 1000 statuses per SHA
 * and context. Any token with push access may write one (a person's `gh` included). Statuses are only added,
 * never edited: `GET /repos/O/R/commits/REF/statuses` lists a commit's, newest first, as GitHub does.
 */
import { jsonBody, type FakeAnswer, type FakeRoute } from './router.js'
import { SHA_PATTERN } from './admin.js'
import type { FakeStatus } from './state.js'

const DOCS = 'https://docs.github.com/rest/commits/statuses#create-a-commit-status'
const STATES = ['error', 'failure', 'pending', 'success'] as const
const DESCRIPTION_LIMIT = 140
const PER_CONTEXT = 1000

const refused = (field: string, message: string): FakeAnswer => [422, { message: 'Validation Failed', errors: [{ resource: 'Status', code: 'custom', field, message }], documentation_url: DOCS, status: '422' }]

/** A status in the shape GitHub's REST API gives it. */
function restStatus(repo: string, status: FakeStatus): Record<string, unknown> {
  return { id: status.id, state: status.state, context: status.context, description: status.description, target_url: status.targetUrl, creator: { login: status.login }, url: `https://api.github.com/repos/${repo}/statuses/${status.sha}` }
}

/** `POST /repos/O/R/statuses/SHA`, `GET /repos/O/R/commits/REF/statuses`. */
export const statusRoutes: readonly FakeRoute[] = [
  {
    method: 'GET',
    path: /^\/repos\/([^/]+\/[^/]+)\/commits\/([^/]+)\/statuses$/,
    answer(req, [, repo = '', ref = ''], { state }) {
      if (!SHA_PATTERN.test(ref)) return [422, { message: 'No commit found for SHA: ' + ref, documentation_url: DOCS, status: '422' }]
      const perPage = Math.min(Number(req.query.get('per_page') ?? 30) || 30, 100)
      const page = Math.max(Number(req.query.get('page') ?? 1) || 1, 1)
      const newestFirst = state.statuses(repo).filter((s) => s.sha === ref.toLowerCase()).reverse()
      return [200, newestFirst.slice((page - 1) * perPage, page * perPage).map((s) => restStatus(repo, s))]
    },
  },
  {
    method: 'POST',
    path: /^\/repos\/([^/]+\/[^/]+)\/statuses\/([^/]+)$/,
    answer(req, [, repo = '', sha = ''], { state, account, note }) {
      if (!SHA_PATTERN.test(sha)) return [422, { message: 'No commit found for SHA: ' + sha, documentation_url: DOCS, status: '422' }]
      const parsed = jsonBody(req)
      if (!parsed.ok) return parsed.answer
      const { state: value, context = 'default', description, target_url: targetUrl } = parsed.value
      if (!(STATES as readonly unknown[]).includes(value)) return refused('state', `state is not included in the list (${STATES.join(', ')})`)
      if (typeof context !== 'string' || context === '') return refused('context', 'context must be a string')
      if (description !== undefined && description !== null && (typeof description !== 'string' || description.length > DESCRIPTION_LIMIT)) return refused('description', `description is too long (maximum is ${DESCRIPTION_LIMIT} characters)`)
      if (targetUrl !== undefined && targetUrl !== null && (typeof targetUrl !== 'string' || !/^https?:\/\//.test(targetUrl))) return refused('target_url', 'target_url must be a URL')
      const lower = sha.toLowerCase()
      if (state.statuses(repo).filter((s) => s.sha === lower && s.context === context).length >= PER_CONTEXT) return refused('context', `This SHA and context has reached the maximum number of statuses.`)
      const status = state.createStatus({ repo, sha: lower, state: value as FakeStatus['state'], context, description: (description as string | undefined) ?? null, targetUrl: (targetUrl as string | undefined) ?? null, login: account?.login ?? '' })
      note(`status ${status.state} "${context}" on ${lower.slice(0, 7)}`)
      return [201, restStatus(repo, status)]
    },
  },
]
