/**
 * The operations the GitLab target does on one merge request, as one token's user, over {@link GitlabHttp}. Each
 * answer is read field by field (a self-managed GitLab of another version may leave some out), and each failure
 * is a DeliveryError saying what was being done.
 */
import { field, textField } from '../../shared/json-body.js'
import { DeliveryError } from '../../../core/errors.js'
import { TARGET, messageOf, type GitlabHttp } from './gitlab-http.js'

/** Rows per page the target reads (GitLab's maximum). */
export const PER_PAGE = 100

/** The merge request as the target reads it. */
export interface MergeRequestInfo {
  /** The source branch's head now: the head a review is of. */
  readonly sha: string
  readonly webUrl: string
  readonly state: string
  readonly sourceBranch: string
  /** `diff_refs.base_sha`: the merge base of the two branches (empty before GitLab computed a diff). */
  readonly baseSha: string
  /** `diff_refs.start_sha`: the target branch's tip when the diff was last computed (empty before). */
  readonly startSha: string
  readonly targetBranch: string
  readonly title: string
  readonly description: string
  /** `draft` (`work_in_progress` on GitLab before 14). */
  readonly draft: boolean
  readonly labels: readonly string[]
  /** The author's username and id (the id undefined when GitLab named none). */
  readonly author: { readonly username: string, readonly id?: number | undefined }
}

/** A repository file's text at a commit, none there, or larger than was asked (its size). */
export type RepositoryFile = { readonly kind: 'found', readonly text: string } | { readonly kind: 'missing' } | { readonly kind: 'too_large', readonly bytes: number }

/** A project member's role (`access_level`: 10 Guest ... 50 Owner) and state (`active`, `blocked`...). */
export interface ProjectMember {
  readonly accessLevel: number
  readonly state: string
}

/** One diff version of the merge request (`GET .../versions`): the three SHAs a position quotes. */
export interface MrVersion {
  readonly id: number
  readonly headSha: string
  readonly baseSha: string
  readonly startSha: string
}

/** One changed file of a version, GitLab's words (the fields the target reads). */
export interface MrDiff {
  readonly old_path: string
  readonly new_path: string
  readonly new_file: boolean
  readonly renamed_file: boolean
  readonly deleted_file: boolean
  /** Hunks from the first `@@`; empty when `collapsed` or `too_large`. */
  readonly diff: string
  readonly collapsed?: boolean | undefined
  readonly too_large?: boolean | undefined
}

/** A note as the searches see it. */
export interface MrNote {
  readonly id: number
  readonly body: string
  readonly authorId: number
  readonly system: boolean
  readonly resolved: boolean
}

/** A discussion: its id and its notes, oldest first. */
export interface MrDiscussion {
  readonly id: string
  readonly notes: readonly MrNote[]
}

/** A text position on a version's diff (`position[...]` of a new discussion). */
export interface TextPosition {
  readonly position_type: 'text'
  readonly base_sha: string
  readonly start_sha: string
  readonly head_sha: string
  readonly old_path: string
  readonly new_path: string
  readonly old_line?: number
  readonly new_line?: number
  readonly line_range?: {
    readonly start: LineRangeEnd
    readonly end: LineRangeEnd
  }
}

/** One end of a multi-line position. */
export interface LineRangeEnd {
  readonly line_code: string
  readonly type: 'new' | 'old'
  readonly old_line?: number
  readonly new_line?: number
}

/** A created discussion, or GitLab's 400 refusal of its position (`line_code can't be blank`). */
export type CreatedDiscussion = { readonly ok: true, readonly id: string } | { readonly ok: false, readonly message: string }

/** A commit status's state (GitLab's names). */
export type StatusState = 'pending' | 'running' | 'success' | 'failed' | 'canceled'

/** A commit status as GitLab lists it. */
export interface StatusRow {
  readonly id: number
  /** GitLab's state (`pending`, `running`, `success`, `failed`, `canceled`, `skipped`, ...). */
  readonly status: string
  readonly description: string | null
}

/** A commit status to write. */
export interface StatusInput {
  readonly state: StatusState
  readonly name: string
  readonly description: string
  readonly targetUrl?: string | undefined
  /** The source branch, so GitLab files the status under the merge request's pipeline. */
  readonly ref?: string | undefined
}

/** One merge request, as one token's user. */
export interface MergeRequestApi {
  mergeRequest(): Promise<MergeRequestInfo>
  /** The diff versions, newest first. */
  versions(): Promise<readonly MrVersion[]>
  /** The changed files of a version. */
  versionDiffs(id: number): Promise<readonly MrDiff[]>
  /** Page `page` (from 1) of {@link PER_PAGE} notes, oldest first. */
  notesPage(page: number): Promise<readonly MrNote[]>
  /** Creates a note; its id. */
  createNote(body: string): Promise<number>
  /** Edits a note; false when it is gone (deleted since it was found). */
  editNote(id: number, body: string): Promise<boolean>
  /** Page `page` (from 1) of {@link PER_PAGE} discussions, oldest first. */
  discussionsPage(page: number): Promise<readonly MrDiscussion[]>
  /** Starts a discussion on the diff; a 400 (a position GitLab cannot place) is answered, not thrown. */
  createDiscussion(body: string, position: TextPosition): Promise<CreatedDiscussion>
  /** Resolves a discussion. */
  resolveDiscussion(id: string): Promise<void>
  /**
   * The commits reachable from `to` and not from `from` (`GET /projects/:id/repository/compare`, from their merge
   * base as GitLab compares by default), their ids; undefined when GitLab does not have one of the two (a 404: a
   * force-pushed commit it dropped).
   */
  compare(from: string, to: string): Promise<readonly string[] | undefined>
  /** Writes a commit status on `sha`. A repeat of the state the status is in (refused by older GitLab) is not an error. */
  setStatus(sha: string, status: StatusInput): Promise<void>
  /** Page `page` (from 1) of {@link PER_PAGE} paths the merge request changes now (`GET .../diffs`, GitLab 15.7+): each file's new path. */
  changedPathsPage(page: number): Promise<readonly string[]>
  /** The project's file `path` at commit `ref`, read no further than `maxBytes` (`GET .../repository/files/:path/raw`). */
  readFile(path: string, ref: string, maxBytes: number): Promise<RepositoryFile>
  /** User `id`'s membership of the project, inherited ones too (`GET .../members/all/:id`); undefined when not a member. */
  member(id: number): Promise<ProjectMember | undefined>
  /** Awards emoji `name` to note `noteId` of the merge request; an award this user already gave is not an error. */
  awardEmoji(noteId: number, name: string): Promise<void>
  /** The statuses named `name` of `sha` on `ref`, every one (finished and not), newest first. */
  statuses(sha: string, name: string, ref: string): Promise<readonly StatusRow[]>
}

/** Where the merge request is: the project (numeric id or `group/project` path) and the merge request's iid. */
export interface MergeRequestRef {
  readonly project: string
  readonly iid: string
}

/** The merge request's API over `http`. */
export function mergeRequestApi(http: GitlabHttp, ref: MergeRequestRef, signal: AbortSignal): MergeRequestApi {
  const project = `/projects/${encodeURIComponent(ref.project)}`
  const mr = `${project}/merge_requests/${encodeURIComponent(ref.iid)}`
  const get = (path: string, doing: string, query?: Record<string, string | number>) => http.ok({ method: 'GET', path, doing, query }, signal)
  const list = (body: unknown, doing: string): unknown[] => {
    if (Array.isArray(body)) return body as unknown[]
    throw new DeliveryError(TARGET, `GitLab's answer was not a list (trying to ${doing})`, { retryable: true })
  }

  return {
    async mergeRequest() {
      const body = await get(mr, 'read the merge request')
      const sha = textField(body, 'sha')
      if (sha === undefined) throw new DeliveryError(TARGET, `the merge request !${ref.iid} has no head commit yet (GitLab named no sha); tried again later`, { retryable: true })
      const refs = field(body, 'diff_refs')
      const author = field(body, 'author')
      const authorId = field(author, 'id')
      const labels = field(body, 'labels')
      return {
        sha: sha.toLowerCase(),
        webUrl: textField(body, 'web_url') ?? '',
        state: textField(body, 'state') ?? 'opened',
        sourceBranch: textField(body, 'source_branch') ?? '',
        baseSha: (textField(refs, 'base_sha') ?? '').toLowerCase(),
        startSha: (textField(refs, 'start_sha') ?? '').toLowerCase(),
        targetBranch: textField(body, 'target_branch') ?? '',
        title: textField(body, 'title') ?? '',
        description: textField(body, 'description') ?? '',
        draft: field(body, 'draft') === true || field(body, 'work_in_progress') === true,
        // Names by default; objects with `name` when asked `with_labels_details`.
        labels: (Array.isArray(labels) ? labels as unknown[] : []).flatMap((l) => (typeof l === 'string' ? [l] : textField(l, 'name') ?? [])),
        author: { username: textField(author, 'username') ?? '', ...(typeof authorId === 'number' ? { id: authorId } : {}) },
      }
    },
    async versions() {
      const doing = 'read the merge request\'s diff versions'
      return list(await get(`${mr}/versions`, doing, { per_page: PER_PAGE }), doing).flatMap((row) => {
        const id = field(row, 'id')
        const headSha = textField(row, 'head_commit_sha')
        const baseSha = textField(row, 'base_commit_sha')
        const startSha = textField(row, 'start_commit_sha')
        return typeof id === 'number' && headSha && baseSha && startSha ? [{ id, headSha: headSha.toLowerCase(), baseSha, startSha }] : []
      })
    },
    async versionDiffs(id) {
      const body = await get(`${mr}/versions/${id}`, 'read a diff version\'s files')
      const diffs = field(body, 'diffs')
      return (Array.isArray(diffs) ? diffs as unknown[] : []).flatMap((row): MrDiff[] => {
        const newPath = textField(row, 'new_path')
        const oldPath = textField(row, 'old_path') ?? newPath
        if (newPath === undefined || oldPath === undefined) return []
        return [{
          old_path: oldPath,
          new_path: newPath,
          new_file: field(row, 'new_file') === true,
          renamed_file: field(row, 'renamed_file') === true,
          deleted_file: field(row, 'deleted_file') === true,
          diff: textField(row, 'diff') ?? '',
          collapsed: field(row, 'collapsed') === true,
          too_large: field(row, 'too_large') === true,
        }]
      })
    },
    async notesPage(page) {
      const doing = 'list the merge request\'s notes'
      return list(await get(`${mr}/notes`, doing, { sort: 'asc', order_by: 'created_at', per_page: PER_PAGE, page }), doing).map(noteOf)
    },
    async createNote(body) {
      const created = await http.ok({ method: 'POST', path: `${mr}/notes`, body: { body }, doing: 'create the review note' }, signal)
      const id = field(created, 'id')
      if (typeof id !== 'number') throw new DeliveryError(TARGET, 'GitLab created the note but named no id', { retryable: true })
      return id
    },
    async editNote(id, body) {
      const call = { method: 'PUT', path: `${mr}/notes/${id}`, body: { body }, doing: 'edit the review note' } as const
      const reply = await http.send(call, signal)
      if (reply.status === 404) return false
      if (reply.status < 200 || reply.status > 299) throw http.failure(call, reply)
      return true
    },
    async discussionsPage(page) {
      const doing = 'list the merge request\'s discussions'
      return list(await get(`${mr}/discussions`, doing, { per_page: PER_PAGE, page }), doing).flatMap((row) => {
        const id = textField(row, 'id')
        const notes = field(row, 'notes')
        return id === undefined ? [] : [{ id, notes: (Array.isArray(notes) ? notes as unknown[] : []).map(noteOf) }]
      })
    },
    async createDiscussion(body, position) {
      const call = { method: 'POST', path: `${mr}/discussions`, body: { body, position }, doing: 'start a discussion on the diff' } as const
      const reply = await http.send(call, signal)
      if (reply.status === 400) return { ok: false, message: messageOf(reply.body) }
      if (reply.status < 200 || reply.status > 299) throw http.failure(call, reply)
      const id = textField(reply.body, 'id')
      if (id === undefined) throw new DeliveryError(TARGET, 'GitLab created the discussion but named no id', { retryable: true })
      return { ok: true, id }
    },
    async resolveDiscussion(id) {
      await http.ok({ method: 'PUT', path: `${mr}/discussions/${encodeURIComponent(id)}`, query: { resolved: 'true' }, doing: 'resolve an earlier review\'s discussion' }, signal)
    },
    async compare(from, to) {
      const call = { method: 'GET', path: `${project}/repository/compare`, query: { from, to }, doing: 'compare the last reviewed head with the new one' } as const
      const reply = await http.send(call, signal)
      if (reply.status === 404) return undefined
      if (reply.status < 200 || reply.status > 299) throw http.failure(call, reply)
      const commits = field(reply.body, 'commits')
      if (!Array.isArray(commits)) throw new DeliveryError(TARGET, 'GitLab\'s compare named no commits list', { retryable: true })
      return (commits as unknown[]).flatMap((row) => {
        const id = textField(row, 'id')
        return id === undefined ? [] : [id.toLowerCase()]
      })
    },
    async setStatus(sha, status) {
      const call = {
        method: 'POST',
        path: `${project}/statuses/${encodeURIComponent(sha)}`,
        body: {
          state: status.state,
          name: status.name,
          description: status.description.slice(0, 255),
          ...(status.targetUrl === undefined ? {} : { target_url: status.targetUrl }),
          ...(status.ref === undefined || status.ref === '' ? {} : { ref: status.ref }),
        },
        doing: `set the commit status ${status.name} to ${status.state}`,
      } as const
      const reply = await http.send(call, signal)
      // Older GitLab refuses a repeat of the state a status is already in ("Cannot transition status via :run
      // from :running"); a retried delivery repeats it on purpose, and the status is then as asked.
      if (reply.status === 400 && /Cannot transition status/i.test(messageOf(reply.body))) return
      if (reply.status < 200 || reply.status > 299) throw http.failure(call, reply)
    },
    async changedPathsPage(page) {
      const doing = 'list the merge request\'s changed files'
      return list(await get(`${mr}/diffs`, doing, { per_page: PER_PAGE, page }), doing).flatMap((row) => textField(row, 'new_path') ?? [])
    },
    async readFile(path, at, maxBytes) {
      // The path is one segment of the URL (`a%2Fb.yml`), as GitLab's route wants it.
      const call = { method: 'GET', path: `${project}/repository/files/${encodeURIComponent(path)}/raw`, query: { ref: at }, doing: `read ${path} at ${at.slice(0, 7)}`, maxBytes } as const
      const reply = await http.send(call, signal)
      if (reply.status === 404) return { kind: 'missing' }
      if (reply.status < 200 || reply.status > 299 || reply.text === undefined) throw http.failure(call, reply)
      return reply.text.kind === 'text' ? { kind: 'found', text: reply.text.text } : reply.text
    },
    async member(id) {
      const call = { method: 'GET', path: `${project}/members/all/${id}`, doing: `read user ${id}'s role on the project` } as const
      const reply = await http.send(call, signal)
      if (reply.status === 404) return undefined
      if (reply.status < 200 || reply.status > 299) throw http.failure(call, reply)
      const level = field(reply.body, 'access_level')
      return { accessLevel: typeof level === 'number' ? level : 0, state: textField(reply.body, 'state') ?? 'active' }
    },
    async awardEmoji(noteId, name) {
      const call = { method: 'POST', path: `${mr}/notes/${noteId}/award_emoji`, body: { name }, doing: `award :${name}: to note ${noteId}` } as const
      const reply = await http.send(call, signal)
      // GitLab answers a refused award with a 404 that says why: this user's same emoji on the note is already there.
      if (reply.status === 404 && /has already been taken/i.test(messageOf(reply.body))) return
      if (reply.status < 200 || reply.status > 299) throw http.failure(call, reply)
    },
    async statuses(sha, name, ref) {
      const doing = `read the commit status ${name}`
      const query = { name, all: 'true', per_page: PER_PAGE, ...(ref === '' ? {} : { ref }) }
      return list(await get(`${project}/repository/commits/${encodeURIComponent(sha)}/statuses`, doing, query), doing).flatMap((row): StatusRow[] => {
        const id = field(row, 'id')
        const status = textField(row, 'status')
        return typeof id === 'number' && status !== undefined ? [{ id, status, description: textField(row, 'description') ?? null }] : []
      }).sort((a, b) => b.id - a.id)
    },
  }
}

function noteOf(row: unknown): MrNote {
  const id = field(row, 'id')
  const author = field(row, 'author')
  const authorId = field(author, 'id')
  return {
    id: typeof id === 'number' ? id : -1,
    body: textField(row, 'body') ?? '',
    authorId: typeof authorId === 'number' ? authorId : -1,
    system: field(row, 'system') === true,
    resolved: field(row, 'resolved') === true,
  }
}
