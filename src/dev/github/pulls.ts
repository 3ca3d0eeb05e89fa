/** The fake GitHub's pull requests over REST: `GET /repos/O/R/pulls/N` (Octokit reads the head there). */
import { NOT_FOUND, type FakeRoute } from './router.js'
import type { FakePull } from './state.js'
import type { FakePullDetails } from './repository-state.js'

/** A pull request in the shape GitHub's REST API gives it (the fields the review flow and the policy read). */
export function restPull(pull: FakePull, details: FakePullDetails = {}): Record<string, unknown> {
  const author = details.author ?? 'octocat'
  const user = { login: author, type: details.authorIsBot ?? author.endsWith('[bot]') ? 'Bot' : 'User' }
  return {
    number: pull.number,
    state: 'open',
    html_url: `https://github.com/${pull.repo}/pull/${pull.number}`,
    title: details.title ?? `Pull request ${pull.number}`,
    body: details.body ?? null,
    draft: details.draft ?? false,
    user,
    labels: (details.labels ?? []).map((name, i) => ({ id: i + 1, name })),
    head: { sha: pull.head, ref: details.headRef ?? 'feature', repo: { full_name: details.headRepo ?? pull.repo } },
    base: { sha: pull.base ?? details.baseSha ?? '0'.repeat(40), ref: details.baseRef ?? 'main', repo: { full_name: pull.repo } },
  }
}

/** `GET /repos/O/R/pulls/N`. */
export const pullRoutes: readonly FakeRoute[] = [
  {
    method: 'GET',
    path: /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)$/,
    answer(_req, [, repo = '', number = ''], { state }) {
      const pull = state.pull(repo, Number(number))
      return pull === undefined ? NOT_FOUND : [200, restPull(pull, state.repository.pullDetails(repo, pull.number))]
    },
  },
]
