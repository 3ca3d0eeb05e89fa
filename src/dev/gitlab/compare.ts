/**
 * The fake GitLab's repository compare (`GET /projects/:id/repository/compare?from=A&to=B`), walked on the
 * project's commit graph (each pushed head and its parents). As GitLab without `straight=true`, it compares from
 * the merge base of `from` and `to`: its `commits` are the commits reachable from `to` and not from `from`, oldest
 * first, so `from=HEAD&to=PREV` lists none exactly when PREV is an ancestor of HEAD. A commit the project does not
 * have is GitLab's `404 Ref Not Found`. `straight=true` (`from..to`) lists the same set here: the graph has no
 * merges that would tell them apart, and the target does not send it.
 */
import { notFound, type GitlabRoute } from './router.js'

/** Every commit reachable from `start` (itself included), on `parents`. */
function reachable(parents: ReadonlyMap<string, readonly string[]>, start: string): Set<string> {
  const seen = new Set<string>()
  const stack = [start]
  while (stack.length > 0) {
    const commit = stack.pop()!
    if (seen.has(commit)) continue
    seen.add(commit)
    stack.push(...(parents.get(commit) ?? []))
  }
  return seen
}

const commitJson = (id: string, parents: readonly string[]) => ({ id, short_id: id.slice(0, 8), title: `commit ${id.slice(0, 8)}`, parent_ids: parents })

export const compareRoutes: readonly GitlabRoute[] = [
  {
    method: 'GET',
    path: /^\/projects\/([^/]+)\/repository\/compare$/,
    answer(req, m, ctx) {
      const project = ctx.state.project(decodeURIComponent(m[1]!))
      if (project === undefined) return notFound('Project')
      const from = (req.query.get('from') ?? '').toLowerCase()
      const to = (req.query.get('to') ?? '').toLowerCase()
      if (from === '' || to === '') return [400, { error: 'from is missing, to is missing' }]
      if (!project.commits.has(from) || !project.commits.has(to)) return notFound('Ref')
      const behind = reachable(project.commits, from)
      // Reachable from `to` and not from `from`, oldest first: the walk's order reversed.
      const commits = [...reachable(project.commits, to)].filter((c) => !behind.has(c)).reverse()
      return [200, {
        commit: commits.length === 0 ? null : commitJson(commits.at(-1)!, project.commits.get(commits.at(-1)!) ?? []),
        commits: commits.map((c) => commitJson(c, project.commits.get(c) ?? [])),
        diffs: [],
        compare_timeout: false,
        compare_same_ref: from === to,
        web_url: `${ctx.origin}/${project.path_with_namespace}/-/compare/${from}...${to}`,
      }]
    },
  },
]
