/**
 * The fake GitLab's merge requests: one (its head, diff refs, title, description, draft, labels, author, source
 * project), its diff versions and a version's files, and its changed files now (`GET .../diffs`, paged as GitLab
 * 15.7+ serves them).
 */
import { ID, mergeRequestOf, notFound, paged, type GitlabRoute } from './router.js'
import type { FakeGitlabDiff, FakeMergeRequest, FakeProject, FakeVersion } from './state.js'
import { userJson } from './users.js'

/** A merge request as `GET .../merge_requests/:iid` answers it (the fields clients read). */
export function mergeRequestJson(project: FakeProject, mr: FakeMergeRequest, origin: string): Record<string, unknown> {
  const latest = mr.versions.at(-1)
  return {
    id: project.id * 1000 + mr.iid,
    iid: mr.iid,
    project_id: project.id,
    state: mr.state,
    source_branch: mr.source_branch,
    target_branch: mr.target_branch,
    source_project_id: mr.sourceProjectId,
    target_project_id: project.id,
    title: mr.title,
    description: mr.description,
    draft: mr.draft,
    work_in_progress: mr.draft,
    labels: [...mr.labels],
    author: userJson(mr.author, origin),
    sha: latest?.head_commit_sha ?? null,
    diff_refs: latest === undefined ? null : { base_sha: latest.base_commit_sha, head_sha: latest.head_commit_sha, start_sha: latest.start_commit_sha },
    web_url: `${origin}/${project.path_with_namespace}/-/merge_requests/${mr.iid}`,
  }
}

function versionJson(mr: FakeMergeRequest, v: FakeVersion): Record<string, unknown> {
  return {
    id: v.id,
    head_commit_sha: v.head_commit_sha,
    base_commit_sha: v.base_commit_sha,
    start_commit_sha: v.start_commit_sha,
    created_at: v.created_at,
    merge_request_id: mr.iid,
    state: 'collected',
    real_size: String(v.diffs.length),
  }
}

/** A changed file as GitLab lists it (a version's `diffs[]`, the merge request's `diffs`): no text when collapsed or too large. */
function diffJson(d: FakeGitlabDiff): Record<string, unknown> {
  return {
    old_path: d.old_path,
    new_path: d.new_path,
    a_mode: d.new_file === true ? '0' : '100644',
    b_mode: d.deleted_file === true ? '0' : '100644',
    new_file: d.new_file ?? false,
    renamed_file: d.renamed_file ?? false,
    deleted_file: d.deleted_file ?? false,
    generated_file: false,
    collapsed: d.collapsed ?? false,
    too_large: d.too_large ?? false,
    diff: d.collapsed === true || d.too_large === true ? '' : d.diff,
  }
}

const MR = `^/projects/${ID}/merge_requests/(\\d+)`

export const mergeRequestRoutes: readonly GitlabRoute[] = [
  {
    method: 'GET',
    path: new RegExp(`${MR}$`),
    answer(_req, m, ctx) {
      const found = mergeRequestOf(ctx.state, m[1]!, m[2]!)
      if (found.missing) return found.missing
      const { project, mr } = found
      return [200, mergeRequestJson(project, mr, ctx.origin)]
    },
  },
  {
    method: 'GET',
    path: new RegExp(`${MR}/versions$`),
    answer(_req, m, ctx) {
      const found = mergeRequestOf(ctx.state, m[1]!, m[2]!)
      if (found.missing) return found.missing
      const { mr } = found
      return [200, [...mr.versions].reverse().map((v) => versionJson(mr, v))]
    },
  },
  {
    method: 'GET',
    path: new RegExp(`${MR}/versions/(\\d+)$`),
    answer(_req, m, ctx) {
      const found = mergeRequestOf(ctx.state, m[1]!, m[2]!)
      if (found.missing) return found.missing
      const { mr } = found
      const version = mr.versions.find((v) => v.id === Number(m[3]))
      if (version === undefined) return notFound('Merge Request Diff')
      return [200, {
        ...versionJson(mr, version),
        commits: [{ id: version.head_commit_sha, short_id: version.head_commit_sha.slice(0, 8), title: 'commit' }],
        diffs: version.diffs.map(diffJson),
      }]
    },
  },
  {
    method: 'GET',
    path: new RegExp(`${MR}/diffs$`),
    answer(req, m, ctx) {
      const found = mergeRequestOf(ctx.state, m[1]!, m[2]!)
      if (found.missing) return found.missing
      return paged(req, (found.mr.versions.at(-1)?.diffs ?? []).map(diffJson))
    },
  },
]
