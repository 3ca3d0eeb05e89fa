/** The fake GitHub's pull requests over REST: `GET /repos/O/R/pulls/N` (Octokit reads the head there). */
import { NOT_FOUND, type FakeRoute } from './router.js'
import type { FakePull } from './state.js'

/** A pull request in the shape GitHub's REST API gives it (the fields the review flow reads). */
export function restPull(pull: FakePull): Record<string, unknown> {
  return {
    number: pull.number,
    state: 'open',
    html_url: `https://github.com/${pull.repo}/pull/${pull.number}`,
    head: { sha: pull.head },
    ...(pull.base === undefined ? {} : { base: { sha: pull.base } }),
  }
}

/** `GET /repos/O/R/pulls/N`. */
export const pullRoutes: readonly FakeRoute[] = [
  {
    method: 'GET',
    path: /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)$/,
    answer(_req, [, repo = '', number = ''], { state }) {
      const pull = state.pull(repo, Number(number))
      return pull === undefined ? NOT_FOUND : [200, restPull(pull)]
    },
  },
]
