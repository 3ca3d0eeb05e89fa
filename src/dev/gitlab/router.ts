/**
 * The fake GitLab's small router, as the fake GitHub's (src/dev/github/router.ts): each API area is a list of
 * {@link GitlabRoute}s in a file of its own. Paths are matched below `/api/v4`, on the path as sent, so a project
 * named by its encoded path (`group%2Fproject`) is one segment.
 */
import type { FakeGitlabState, FakeGitlabUser, FakeMergeRequest, FakeProject } from './state.js'

/** A request as a route sees it. */
export interface GitlabRequest {
  readonly method: string
  /** Below `/api/v4`, as sent: `/projects/group%2Fproject/merge_requests/1`. */
  readonly path: string
  readonly query: URLSearchParams
  readonly body: string
}

/** An answer: status, JSON body (or {@link RawText}), extra headers. */
export type GitlabAnswer = readonly [status: number, body: unknown, headers?: Record<string, string>]

/** A body answered as it is, `text/plain` (a repository file's raw content), not as JSON. */
export class RawText {
  constructor(readonly text: string) {}
}

/** What a route is given beside the request. */
export interface GitlabContext {
  readonly state: FakeGitlabState
  readonly user: FakeGitlabUser
  /** The fake's web origin (`http://127.0.0.1:PORT`), for `web_url`s. */
  readonly origin: string
  /** Adds a few words to the request's log line. */
  note(text: string): void
}

/** One endpoint. */
export interface GitlabRoute {
  readonly method: string
  readonly path: RegExp
  /** Whether it writes (refused to a token without the `api` scope). */
  readonly writes?: boolean
  answer(req: GitlabRequest, match: RegExpExecArray, ctx: GitlabContext): GitlabAnswer
}

/** GitLab's 404 for a project, a merge request or a note it does not know (or the token cannot see). */
export const notFound = (what: string): GitlabAnswer => [404, { message: `404 ${what} Not Found` }]

/** The request's JSON body (GitLab reads form bodies too; the gateway sends JSON), or a 400. */
export function jsonBody(req: GitlabRequest): { readonly value: Record<string, unknown>, readonly bad?: undefined } | { readonly bad: GitlabAnswer } {
  try {
    const parsed: unknown = req.body === '' ? {} : JSON.parse(req.body)
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return { value: parsed as Record<string, unknown> }
  } catch {
    // Answered below.
  }
  return { bad: [400, { error: 'The request body is not valid JSON' }] }
}

/** The project and merge request a path's groups name (`:id`, `:iid`), or GitLab's 404. */
export function mergeRequestOf(state: FakeGitlabState, id: string, iid: string): { readonly project: FakeProject, readonly mr: FakeMergeRequest, readonly missing?: undefined } | { readonly missing: GitlabAnswer } {
  const project = state.project(decodeURIComponent(id))
  if (project === undefined) return { missing: notFound('Project') }
  const mr = project.mergeRequests.get(Number(iid))
  return mr === undefined ? { missing: notFound('Merge Request') } : { project, mr }
}

/** `page` and `per_page` of a list (GitLab's defaults: 1 and 20; at most 100), with GitLab's paging headers. */
export function paged<T>(req: GitlabRequest, rows: readonly T[]): GitlabAnswer {
  const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page') ?? 20) || 20))
  const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1)
  const slice = rows.slice((page - 1) * perPage, page * perPage)
  const pages = Math.max(1, Math.ceil(rows.length / perPage))
  return [200, slice, { 'x-page': String(page), 'x-per-page': String(perPage), 'x-total': String(rows.length), 'x-total-pages': String(pages), ...(page < pages ? { 'x-next-page': String(page + 1) } : {}) }]
}

export const ID = '([^/]+)'
