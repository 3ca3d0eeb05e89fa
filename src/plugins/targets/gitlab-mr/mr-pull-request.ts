/**
 * The gateway's own handle on a merge request ({@link PullRequestHost}), for the policy layer: the merge request's
 * facts, a repository file at a commit (a policy file, read at the target branch's commit, never the source's), a
 * note, the route's notice (one note, edited in place), an award emoji on a command's note, and a commenter's
 * role on the project, which stands for GitHub's permission (GitLab's events say nothing of it). Every call is the
 * token's, and fails as a DeliveryError that says what was being done (gitlab-http.ts).
 */
import type { HostFile, PullFacts, PullRequestHost, PullRequestWhere, Reaction, RepoPermission } from '../../../core/code-host-types.js'
import { DeliveryError } from '../../../core/errors.js'
import { TARGET, type GitlabHttp } from './gitlab-http.js'
import type { GitlabUsers } from './gitlab-users.js'
import { mergeRequestApi, PER_PAGE, type MergeRequestInfo } from './mr-api.js'
import { noticeMarker, withoutQuickActions } from './mr-markers.js'
import { findOwnNote } from './mr-review.js'
import { extraProblem } from './validate.js'

/** Pages of changed paths read: 3,000 files, as many as GitHub lists. */
const MAX_PATH_PAGES = 30

/** GitLab's award emoji for each reaction. */
const EMOJI: Readonly<Record<Reaction, string>> = Object.freeze({ 'eyes': 'eyes', '+1': 'thumbsup', '-1': 'thumbsdown', 'confused': 'confused', 'rocket': 'rocket' })

/**
 * The permission a role on the project stands for (`access_level`): Owner (50) `admin`, Maintainer (40)
 * `maintain`, Developer (30) `write`, Reporter (20) `triage`, Guest, Planner and Minimal Access `read`.
 */
export function permissionOfRole(accessLevel: number): RepoPermission {
  if (accessLevel >= 50) return 'admin'
  if (accessLevel >= 40) return 'maintain'
  if (accessLevel >= 30) return 'write'
  if (accessLevel >= 20) return 'triage'
  return accessLevel > 0 ? 'read' : 'none'
}

/**
 * The merge request `where` names (`deliver_extra.project` and `mr_iid`, as the route's deliveries do); undefined
 * when those do not name one GitLab could have.
 */
export function mrPullRequest(http: GitlabHttp, users: GitlabUsers, where: PullRequestWhere): PullRequestHost | undefined {
  if (extraProblem(where.extra) !== undefined) return undefined
  const project = where.extra['project']!
  const iid = where.extra['mr_iid']!
  const api = mergeRequestApi(http, { project, iid }, where.signal)
  // One read of the merge request serves the handle's calls (a job's policy check asks its facts more than once).
  let read: Promise<MergeRequestInfo> | undefined
  const mergeRequest = (): Promise<MergeRequestInfo> => {
    read ??= api.mergeRequest()
    return read.catch((error: unknown) => {
      read = undefined
      throw error
    })
  }
  const noteUrl = async (id: number) => `${(await mergeRequest()).webUrl}#note_${id}`

  return {
    repo: project,
    number: Number(iid),
    async facts(): Promise<PullFacts> {
      const mr = await mergeRequest()
      // The target branch's commit the diff was computed against: until GitLab computed one, there is no base to read.
      if (mr.startSha === '') throw new DeliveryError(TARGET, `GitLab has not computed the diff of !${iid} yet (no diff_refs.start_sha); tried again later`, { retryable: true, retryAfterMs: 5_000 })
      return {
        repo: project,
        number: Number(iid),
        title: mr.title,
        body: mr.description,
        draft: mr.draft,
        author: mr.author.username,
        authorIsBot: mr.author.id === undefined ? false : await users.isBot(mr.author.id, where.signal),
        labels: mr.labels,
        baseRef: mr.targetBranch,
        baseSha: mr.startSha,
        headRef: mr.sourceBranch,
        headSha: mr.sha,
      }
    },
    async changedPaths() {
      const paths: string[] = []
      for (let page = 1; page <= MAX_PATH_PAGES; page++) {
        const rows = await api.changedPathsPage(page)
        paths.push(...rows)
        if (rows.length < PER_PAGE) break
      }
      return paths
    },
    readFile: (path, ref, maxBytes): Promise<HostFile> => api.readFile(path, ref, maxBytes),
    async reply(body) {
      return noteUrl(await api.createNote(withoutQuickActions(body)))
    },
    async notice(body) {
      const marker = noticeMarker(where.route)
      const text = `${marker}\n${withoutQuickActions(body)}`
      const note = await findOwnNote(api, marker, await users.me(where.signal))
      const id = note !== undefined && (await api.editNote(note.id, text)) ? note.id : await api.createNote(text)
      return noteUrl(id)
    },
    async react(comment, reaction) {
      await api.awardEmoji(comment.id, EMOJI[reaction])
    },
    async permission(commenter) {
      const me = await users.me(where.signal)
      // The token's own notes (a review an agent wrote) never command the gateway, whatever its role.
      if (commenter.id === me.id || commenter.login === me.username) return 'none'
      // GitLab's members API asks by id, which every note event names.
      if (commenter.id === undefined) return 'none'
      const member = await api.member(commenter.id)
      return member === undefined || member.state !== 'active' ? 'none' : permissionOfRole(member.accessLevel)
    },
  }
}
