/**
 * The fake GitHub's small router: each API area (users, pulls, issue comments, GraphQL, the fake's own admin
 * endpoints) is a list of {@link FakeRoute}s in a file of its own, so a new area (a pull request's files,
 * reviews, check runs) is one more file and one more line in server.ts.
 */
import type { FakeGithubState } from './state.js'

/** A request as a route sees it; the body is read whole (the fake serves small JSON documents). */
export interface FakeRequest {
  readonly method: string
  /** The path, without the query: `/repos/o/r/pulls/1`. */
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: string
  /** The origin the client addressed: `http://api.github.localhost` through gh's proxy, else `http://HOST:PORT`. */
  readonly origin: string
}

/** An answer: status, JSON body, extra headers. */
export type FakeAnswer = readonly [status: number, body: unknown, headers?: Record<string, string>]

/** Who a token stands for: a login and, for an App's installation token, the only repositories it may touch. */
export interface FakeAccount {
  readonly login: string
  readonly repos?: ReadonlySet<string> | undefined
}

/** What a route is given beside the request: the state, the caller, and a note for the request's log line. */
export interface RouteContext {
  readonly state: FakeGithubState
  /** The authenticated account; the fake's admin routes are answered without one. */
  readonly account: FakeAccount | undefined
  /** Adds a few words to this request's log line (`created comment 1001 on o/r#1`). */
  note(text: string): void
}

/** One endpoint: a method, a path pattern whose groups the answer reads, and the answer. */
export interface FakeRoute {
  readonly method: string
  readonly path: RegExp
  /** Admin routes of the fake itself are answered before any token check. */
  readonly unauthenticated?: boolean
  answer(req: FakeRequest, match: RegExpExecArray, ctx: RouteContext): FakeAnswer
}

/** The route that serves `req`, with its match, or undefined. */
export function findRoute(routes: readonly FakeRoute[], req: FakeRequest): { route: FakeRoute; match: RegExpExecArray } | undefined {
  for (const route of routes) {
    if (route.method !== req.method) continue
    const match = route.path.exec(req.path)
    if (match !== null) return { route, match }
  }
  return undefined
}

/** A request's JSON object body, or the 400 answer GitHub gives for a body that is not one. */
export function jsonBody(req: FakeRequest): { readonly ok: true; readonly value: Record<string, unknown> } | { readonly ok: false; readonly answer: FakeAnswer } {
  try {
    const parsed: unknown = req.body === '' ? {} : JSON.parse(req.body)
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return { ok: true, value: parsed as Record<string, unknown> }
  } catch {
    // Answered below, as GitHub answers a body it cannot parse.
  }
  return { ok: false, answer: [400, { message: 'Problems parsing JSON', documentation_url: 'https://docs.github.com/rest' }] }
}

/** GitHub's `404 Not Found`. */
export const NOT_FOUND: FakeAnswer = [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }]
