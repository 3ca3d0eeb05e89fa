/**
 * A local fake GitLab, for the GitLab target's tests and for trying a merge request review without GitLab: a
 * node:http server with its state in memory (users and their tokens, projects with their members and repository
 * files, merge requests with diff versions, notes, discussions, award emoji, commit statuses), under `/api/v4` as
 * GitLab serves its API. It refuses what GitLab refuses where it matters to a review: a diff position GitLab
 * cannot place (positions.ts), a write with a `read_api` token, another user's note, a status repeated in the
 * state it is in, an emoji awarded twice. A test makes requests fail, or go unanswered until the client gives up,
 * with {@link FakeGitlab.fail}.
 *
 * Each API area is a file of routes (merge-requests.ts, notes.ts, discussions.ts, statuses.ts, compare.ts,
 * users.ts, members.ts, repository-files.ts, award-emoji.ts), as the fake GitHub's are (src/dev/github/).
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { adminPush } from './admin.js'
import { awardEmojiRoutes } from './award-emoji.js'
import { compareRoutes } from './compare.js'
import { discussionRoutes } from './discussions.js'
import { mergeRequestRoutes } from './merge-requests.js'
import { allNotes } from './notes.js'
import { RawText, type GitlabAnswer, type GitlabRequest, type GitlabRoute } from './router.js'
import { memberRoutes } from './members.js'
import { repositoryFileRoutes } from './repository-files.js'
import { createFakeGitlabState, type FakeAward, type FakeGitlabDiff, type FakeGitlabDiscussion, type FakeGitlabNote, type FakeGitlabState, type FakeGitlabStatus, type FakeGitlabUser, type FakeMergeRequest } from './state.js'
import { statusRoutes, statusRules } from './statuses.js'
import { noteRoutes } from './notes.js'
import { userRoutes } from './users.js'

const ROUTES: readonly GitlabRoute[] = [
  ...userRoutes, ...mergeRequestRoutes, ...noteRoutes, ...discussionRoutes, ...awardEmojiRoutes, ...statusRoutes, ...compareRoutes, ...memberRoutes, ...repositoryFileRoutes,
]

/** The token the fake accepts unless told another. */
export const DEFAULT_GITLAB_TOKEN = 'glpat-fake-0123456789abcdef'
/** The user that token stands for: a project access token's bot user. */
export const DEFAULT_GITLAB_USER = 'project_1_bot_hookpilot'

/** A failure the next matching requests get instead of their answer. */
export interface FakeGitlabFailure {
  readonly method?: string
  /** Tested against the path below `/api/v4` (`/projects/1/merge_requests/1/discussions`). */
  readonly path?: RegExp
  /** The status to answer; `'hang'`: no answer at all (the client's time limit ends the request). */
  readonly status: number | 'hang'
  readonly body?: unknown
  readonly headers?: Record<string, string>
  /** How many requests fail; 1 by default. */
  readonly times?: number
  /** Answer the request as usual (the write is made) and then fail it: a post whose answer was lost. */
  readonly afterWrite?: boolean
}

/** One request, once answered. */
export interface FakeGitlabRecord {
  readonly method: string
  /** Below `/api/v4`, with the query. */
  readonly target: string
  readonly status: number | 'hang'
  readonly user?: string
  readonly note?: string
}

/** Options of {@link startFakeGitlab}. */
export interface FakeGitlabOptions {
  readonly port?: number | undefined
  /** 127.0.0.1 by default. */
  readonly host?: string | undefined
  readonly token?: string | undefined
  readonly username?: string | undefined
  /** Refuse a repeat of the state a status is in, as older GitLab does (default true). */
  readonly strictStatuses?: boolean | undefined
  readonly onRequest?: ((record: FakeGitlabRecord) => void) | undefined
}

/** A running fake GitLab. */
export interface FakeGitlab {
  /** Its web origin: `http://127.0.0.1:PORT`. */
  readonly origin: string
  /** Its API root, what `platforms.gitlab.api_url` names: `http://127.0.0.1:PORT/api/v4`. */
  readonly apiUrl: string
  readonly token: string
  readonly user: FakeGitlabUser
  readonly state: FakeGitlabState
  /** Another token: another user, or the same kind of user with other scopes (`['read_api']`). */
  addUser(token: string, username: string, scopes?: readonly string[]): FakeGitlabUser
  /** A user without a token (a merge request's author, a commenter); `bot` marks a bot account. */
  addPerson(username: string, options?: { readonly bot?: boolean }): FakeGitlabUser
  /** Makes `user` a member of `project` with `accessLevel` (30 Developer, 40 Maintainer...) and `state` (`active`). */
  addMember(project: string, user: FakeGitlabUser, accessLevel: number, state?: string): void
  /** Puts a file in `project`'s repository at commit `ref`. */
  setFile(project: string, ref: string, path: string, text: string): void
  /**
   * Declares a merge request of `project` (a path; the first is id 1), or pushes to it: `head` becomes its head,
   * with a new diff version of `diffs` (its base SHA made up from the project's name, its start SHA, the target
   * branch's tip, `start` or made up too). Returns the project's numeric id. The head's parent is the merge
   * request's previous head (a plain push) unless `parents` says otherwise (`[]` or another commit: a force-push, a
   * rebase); the compare API walks these parents.
   */
  push(project: string, iid: number, head: string, diffs: readonly FakeGitlabDiff[], options?: { readonly parents?: readonly string[], readonly start?: string }): number
  /** Changes what a merge request says of itself; `sourceProject` makes it a fork's (a project path). */
  updateMergeRequest(project: string, iid: number, details: MergeRequestDetails): void
  /** The award emoji on a note of the merge request. */
  awards(project: string, iid: number, noteId: number): FakeAward[]
  /** A note written by another user (or with `system`, by GitLab itself). */
  addNote(project: string, iid: number, body: string, author: FakeGitlabUser | 'system'): FakeGitlabNote
  mergeRequest(project: string, iid: number): FakeMergeRequest
  /** The merge request's plain notes and discussion notes, oldest first. */
  notes(project: string, iid: number): FakeGitlabNote[]
  discussions(project: string, iid: number): FakeGitlabDiscussion[]
  statuses(project: string): FakeGitlabStatus[]
  /** Makes the next matching requests fail. */
  fail(failure: FakeGitlabFailure): void
  /** Every request, `METHOD /path?query → status`. */
  requests(): string[]
  /** The 400s GitLab would give a diff discussion's position, so far. */
  positionErrors(): number
  close(): Promise<void>
}

/** What {@link FakeGitlab.updateMergeRequest} may change. */
export interface MergeRequestDetails {
  readonly title?: string
  readonly description?: string
  readonly draft?: boolean
  readonly labels?: readonly string[]
  readonly author?: FakeGitlabUser
  readonly sourceBranch?: string
  readonly targetBranch?: string
  readonly sourceProject?: string
}

/** Starts a fake GitLab on 127.0.0.1. */
export async function startFakeGitlab(options: FakeGitlabOptions = {}): Promise<FakeGitlab> {
  const state = createFakeGitlabState()
  const token = options.token ?? DEFAULT_GITLAB_TOKEN
  statusRules.strict = options.strictStatuses ?? true
  const addPerson = (username: string, person: { readonly bot?: boolean } = {}): FakeGitlabUser => {
    const user = { id: state.nextId(), username, scopes: [], ...(person.bot === undefined ? {} : { bot: person.bot }) }
    state.accounts.set(user.id, user)
    return user
  }
  const addUser = (t: string, username: string, scopes: readonly string[] = ['api']): FakeGitlabUser => {
    const user = { id: state.nextId(), username, scopes }
    state.users.set(t, user)
    state.accounts.set(user.id, user)
    return user
  }
  const user = addUser(token, options.username ?? DEFAULT_GITLAB_USER)
  // Who opens a merge request unless a test says: a person, as in GitLab's sample hooks.
  const root = addPerson('root')
  const failures: { failure: FakeGitlabFailure, left: number }[] = []
  const log: string[] = []
  let positionErrors = 0
  const hanging = new Set<ServerResponse>()
  let origin = ''

  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => { body += chunk })
    req.on('end', () => handle(req, res, body))
  })

  function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', 'http://fake')
    const raw = (req.url ?? '/').split('?')[0]!
    const method = req.method ?? 'GET'
    const target = `${raw.replace(/^\/api\/v4/, '')}${url.search}`
    const notes: string[] = []
    const bearer = /^Bearer (.+)$/i.exec(String(req.headers['authorization'] ?? ''))?.[1]
    const account = state.users.get(String(req.headers['private-token'] ?? bearer ?? ''))
    const who = account?.username
    const finish = ([status, json, headers]: GitlabAnswer | readonly ['hang', unknown]): void => {
      log.push(`${method} ${target} → ${status}`)
      options.onRequest?.({ method, target, status, ...(who === undefined ? {} : { user: who }), ...(notes.length === 0 ? {} : { note: notes.join('; ') }) })
      if (status === 'hang') {
        hanging.add(res)
        res.on('close', () => hanging.delete(res))
        return
      }
      if (json instanceof RawText) {
        res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers })
        return void res.end(json.text)
      }
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(JSON.stringify(json))
    }
    if (method === 'POST' && raw === '/-/fake/push') return finish(adminPush(body, fake.push))
    if (!raw.startsWith('/api/v4/')) return finish([404, { message: '404 Not Found' }])
    const path = raw.slice('/api/v4'.length)
    if (account === undefined) return finish([401, { message: '401 Unauthorized' }])
    const request: GitlabRequest = { method, path, query: url.searchParams, body }
    const failing = failures.find((f) => f.left > 0 && (f.failure.method === undefined || f.failure.method === method) && (f.failure.path === undefined || f.failure.path.test(path)))
    if (failing !== undefined && failing.failure.afterWrite !== true) {
      failing.left--
      notes.push('failed on demand')
      return finish(failed(failing.failure))
    }
    const matched = ROUTES.map((route) => ({ route, match: route.method === method ? route.path.exec(path) : null })).find((r) => r.match !== null)
    if (matched === undefined) return finish([404, { error: '404 Not Found' }])
    if (matched.route.writes === true && !account.scopes.includes('api')) {
      return finish([403, { error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'api' }])
    }
    const answer = matched.route.answer(request, matched.match!, { state, user: account, origin, note: (text) => notes.push(text) })
    if (answer[0] === 400 && JSON.stringify(answer[1]).includes('line_code')) positionErrors++
    if (failing !== undefined) {
      failing.left--
      notes.push('made, then failed on demand')
      return finish(failed(failing.failure))
    }
    finish(answer)
  }

  function failed(failure: FakeGitlabFailure): GitlabAnswer | readonly ['hang', unknown] {
    if (failure.status === 'hang') return ['hang', undefined]
    return [failure.status, failure.body ?? { message: `${failure.status} failed on demand` }, failure.headers ?? {}]
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve))
  origin = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`
  const mrOf = (project: string, iid: number): FakeMergeRequest => {
    const mr = state.ensureProject(project).mergeRequests.get(iid)
    if (mr === undefined) throw new Error(`the fake GitLab has no merge request ${project}!${iid}`)
    return mr
  }
  const fakeSha = (text: string) => createHash('sha1').update(text).digest('hex')

  const fake: FakeGitlab = {
    origin,
    apiUrl: `${origin}/api/v4`,
    token,
    user,
    state,
    addUser,
    addPerson,
    addMember(project, member, accessLevel, memberState = 'active') {
      state.ensureProject(project).members.set(member.id, { user: member, accessLevel, state: memberState })
    },
    setFile(project, ref, path, text) {
      const files = state.ensureProject(project).files
      const at = files.get(ref.toLowerCase()) ?? new Map<string, string>()
      at.set(path, text)
      files.set(ref.toLowerCase(), at)
    },
    push(project, iid, head, diffs, pushOptions) {
      const p = state.ensureProject(project)
      let mr = p.mergeRequests.get(iid)
      if (mr === undefined) {
        mr = {
          iid, projectId: p.id, sourceProjectId: p.id, source_branch: `feature-${iid}`, target_branch: 'main', state: 'opened',
          title: `Merge request ${iid}`, description: '', draft: false, labels: [], author: root, versions: [], notes: [], discussions: [], awards: [],
        }
        p.mergeRequests.set(iid, mr)
      }
      const previous = mr.versions.at(-1)?.head_commit_sha
      if (!p.commits.has(head.toLowerCase())) p.commits.set(head.toLowerCase(), (pushOptions?.parents ?? (previous === undefined ? [] : [previous])).map((c) => c.toLowerCase()))
      const start = (pushOptions?.start ?? fakeSha(`${project} start`)).toLowerCase()
      // The target branch's tip is a commit of the project (its files are read there).
      if (!p.commits.has(start)) p.commits.set(start, [])
      const now = state.now()
      mr.versions.push({ id: state.nextId(), head_commit_sha: head.toLowerCase(), base_commit_sha: fakeSha(`${project} base`), start_commit_sha: start, created_at: now, diffs })
      // GitLab notes a push itself: a system note the gateway must pass over.
      mr.notes.push({ id: state.nextId(), body: `added 1 commit\n\n* ${head.slice(0, 8)} - a commit`, author: user, system: true, type: null, resolved: false, resolvable: false, created_at: now, updated_at: now, edits: 0 })
      return p.id
    },
    addNote(project, iid, body, author) {
      const mr = mrOf(project, iid)
      const now = state.now()
      const note: FakeGitlabNote = { id: state.nextId(), body, author: author === 'system' ? user : author, system: author === 'system', type: null, resolved: false, resolvable: false, created_at: now, updated_at: now, edits: 0 }
      mr.notes.push(note)
      return note
    },
    updateMergeRequest(project, iid, details) {
      const mr = mrOf(project, iid)
      if (details.title !== undefined) mr.title = details.title
      if (details.description !== undefined) mr.description = details.description
      if (details.draft !== undefined) mr.draft = details.draft
      if (details.labels !== undefined) mr.labels = [...details.labels]
      if (details.author !== undefined) mr.author = details.author
      if (details.sourceBranch !== undefined) mr.source_branch = details.sourceBranch
      if (details.targetBranch !== undefined) mr.target_branch = details.targetBranch
      if (details.sourceProject !== undefined) mr.sourceProjectId = state.ensureProject(details.sourceProject).id
    },
    awards: (project, iid, noteId) => mrOf(project, iid).awards.filter((a) => a.noteId === noteId),
    mergeRequest: mrOf,
    notes: (project, iid) => allNotes(mrOf(project, iid)),
    discussions: (project, iid) => mrOf(project, iid).discussions,
    statuses: (project) => state.ensureProject(project).statuses,
    fail(failure) {
      failures.push({ failure, left: failure.times ?? 1 })
    },
    requests: () => [...log],
    positionErrors: () => positionErrors,
    close: () => new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
  return fake
}
