/**
 * The fake GitHub's compare API, `GET /repos/O/R/compare/BASE...HEAD`, answered from the commit graph a test
 * declares (`FakeGithub.addCommit`): `status` is `identical`, `ahead` (BASE is an ancestor of HEAD: plain new
 * commits), `behind` (HEAD is an ancestor of BASE) or `diverged` (both moved since their merge base, as after a
 * force-push or a rebase), with GitHub's counts. A commit the graph does not know is a 404, as GitHub answers for a
 * SHA no longer reachable (shared spec §8). `files` is empty: the fake keeps no diff between two commits.
 */
import { NOT_FOUND, type FakeRoute } from './router.js'
import type { FakeGithubState } from './state.js'

/** The commits reachable from `sha` (itself included), newest first in the order they are walked. */
function ancestors(state: FakeGithubState, repo: string, sha: string): string[] {
  const seen = new Set<string>()
  const order: string[] = []
  const queue = [sha]
  while (queue.length > 0) {
    const next = queue.shift()!
    if (seen.has(next)) continue
    seen.add(next)
    order.push(next)
    queue.push(...(state.parents(repo, next) ?? []))
  }
  return order
}

/** A commit in the compare answer's shape (the fields a client reads). */
function restCommit(repo: string, sha: string, parents: readonly string[]): Record<string, unknown> {
  return { sha, html_url: `https://github.com/${repo}/commit/${sha}`, parents: parents.map((p) => ({ sha: p })) }
}

/** `GET /repos/O/R/compare/BASE...HEAD` (also `BASE..HEAD`, which GitHub reads the same way for this API). */
export const compareRoutes: readonly FakeRoute[] = [
  {
    method: 'GET',
    path: /^\/repos\/([^/]+\/[^/]+)\/compare\/([0-9A-Za-z]+)\.\.\.?([0-9A-Za-z]+)$/,
    answer(_req, [, repo = '', base = '', head = ''], { state, note }) {
      const [from, to] = [base.toLowerCase(), head.toLowerCase()]
      if (state.parents(repo, from) === undefined || state.parents(repo, to) === undefined) return NOT_FOUND
      const ofHead = ancestors(state, repo, to)
      const ofBase = ancestors(state, repo, from)
      const inBase = new Set(ofBase)
      const inHead = new Set(ofHead)
      const aheadBy = ofHead.filter((sha) => !inBase.has(sha))
      const behindBy = ofBase.filter((sha) => !inHead.has(sha))
      const mergeBase = ofHead.find((sha) => inBase.has(sha))
      const status = from === to ? 'identical' : behindBy.length === 0 ? 'ahead' : aheadBy.length === 0 ? 'behind' : 'diverged'
      note(`compared ${from.slice(0, 7)}...${to.slice(0, 7)} on ${repo}: ${status}`)
      const commit = (sha: string) => restCommit(repo, sha, state.parents(repo, sha) ?? [])
      return [200, {
        url: `https://api.github.com/repos/${repo}/compare/${from}...${to}`,
        html_url: `https://github.com/${repo}/compare/${from}...${to}`,
        status,
        ahead_by: aheadBy.length,
        behind_by: behindBy.length,
        total_commits: aheadBy.length,
        base_commit: commit(from),
        merge_base_commit: mergeBase === undefined ? null : commit(mergeBase),
        // Oldest first, as GitHub lists them.
        commits: aheadBy.reverse().map(commit),
        files: [],
      }]
    },
  },
]
