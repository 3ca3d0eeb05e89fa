/**
 * The fake's own endpoints, under `/_fake/` (no path of GitHub's starts so): what a developer or a test does
 * that GitHub does on its own, like moving a pull request's head when someone pushes, and a look at what the
 * fake holds. `hookpilot dev github head` and `show` call them. No token is asked: the fake listens on
 * loopback and holds nothing but what it was sent.
 */
import { jsonBody, NOT_FOUND, type FakeRoute } from './router.js'
import type { FakeGithubState, FakePull } from './state.js'

/** The prefix of every admin path. */
export const ADMIN_PREFIX = '/_fake'

/** What a commit SHA looks like to the fake (and to the gateway's head check): 7 to 64 hex digits. */
export const SHA_PATTERN = /^[0-9a-f]{7,64}$/i

/** A pull request and its comments, as `GET /_fake/repos/O/R/pulls/N` answers. */
export interface PullSummary {
  readonly repo: string
  readonly number: number
  readonly head: string
  readonly comments: readonly { readonly id: number; readonly login: string; readonly edits: number; readonly body: string }[]
}

function summary(state: FakeGithubState, pull: FakePull): PullSummary {
  const comments = state.comments(pull.repo, pull.number).map(({ id, login, edits, body }) => ({ id, login, edits, body }))
  return { repo: pull.repo, number: pull.number, head: pull.head, comments }
}

/** Move a head (declaring the pull request), read one pull request, list them all. */
export const adminRoutes: readonly FakeRoute[] = [
  {
    method: 'PUT',
    path: /^\/_fake\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)\/head$/,
    unauthenticated: true,
    answer(req, [, repo = '', number = ''], { state, note }) {
      const parsed = jsonBody(req)
      if (!parsed.ok) return parsed.answer
      const sha = parsed.value['sha']
      if (typeof sha !== 'string' || !SHA_PATTERN.test(sha)) return [422, { message: `"sha" must be a commit SHA (7 to 64 hex digits), not ${JSON.stringify(sha)}` }]
      // `parents`: the new head's parents, for the compare API (an incremental review asks it); `[]` for a root.
      const parents: unknown = parsed.value['parents']
      if (parents !== undefined && !(Array.isArray(parents) && parents.every((p) => typeof p === 'string' && SHA_PATTERN.test(p)))) {
        return [422, { message: `"parents" must be a list of commit SHAs, not ${JSON.stringify(parents)}` }]
      }
      const pull = state.setHead(repo, Number(number), sha.toLowerCase())
      if (Array.isArray(parents)) state.addCommit(repo, pull.head, parents.map((p) => String(p).toLowerCase()))
      note(`${repo}#${number} head is now ${pull.head}`)
      return [200, summary(state, pull)]
    },
  },
  {
    method: 'GET',
    path: /^\/_fake\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)$/,
    unauthenticated: true,
    answer(_req, [, repo = '', number = ''], { state }) {
      const pull = state.pull(repo, Number(number))
      return pull === undefined ? NOT_FOUND : [200, summary(state, pull)]
    },
  },
  {
    method: 'GET',
    path: /^\/_fake\/pulls$/,
    unauthenticated: true,
    answer: (_req, _match, { state }) => [200, state.pulls().map((pull) => summary(state, pull))],
  },
]
