/**
 * A local fake GitHub, for trying the review flow without GitHub (`hookpilot dev github`) and for the tests of
 * what `gh` and Octokit do on a pull request. A node:http server with its state in memory: pull requests and
 * their heads, their comments, the accounts its tokens stand for. Each API area is a file of routes
 * (users.ts, pulls.ts, issue-comments.ts, graphql.ts, and the fake's own admin.ts); a test adds more of GitHub
 * through {@link FakeGithubExtension}s (a GitHub App's endpoints, a hook's deliveries).
 *
 * Each request is reported as it is answered ({@link FakeGithubOptions.onRequest}), without its token.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminRoutes } from './admin.js'
import { FAKE_API_ORIGIN, fakeGhEnvironment, writeFakeGhConfig } from './gh-env.js'
import { graphqlRoutes } from './graphql.js'
import { issueCommentRoutes } from './issue-comments.js'
import { metaRoutes } from './meta.js'
import { pullFileRoutes } from './pulls-files.js'
import { pullRoutes } from './pulls.js'
import { repositoryRoutes } from './repository.js'
import { reviewRoutes } from './reviews.js'
import { reviewThreadRoutes } from './review-threads.js'
import { compareRoutes } from './compare.js'
import { checkRoutes } from './checks.js'
import { statusRoutes } from './statuses.js'
import { findRoute, type FakeAccount, type FakeAnswer, type FakeRequest, type FakeRoute } from './router.js'
import { createFakeGithubState, type CommentWrite, type FakeComment, type FakeFile, type FakeGithubState, type FakeReview, type FakeCheckRun, type FakeStatus, type FakeThread } from './state.js'
import { userRoutes } from './users.js'

/** Every area the fake serves, in the order they are tried. */
const ROUTES: readonly FakeRoute[] = [...adminRoutes, ...metaRoutes, ...userRoutes, ...pullFileRoutes, ...reviewRoutes, ...reviewThreadRoutes, ...compareRoutes, ...checkRoutes, ...statusRoutes, ...pullRoutes, ...issueCommentRoutes, ...repositoryRoutes, ...graphqlRoutes]

/** The token the fake accepts unless told another. */
export const DEFAULT_FAKE_TOKEN = 'fake-gh-token-0123456789'

/** The login that token stands for unless told another. */
export const DEFAULT_FAKE_LOGIN = 'hookpilot-bot'

/** More of GitHub, served beside the fake's own areas (a GitHub App's endpoints, a hook's deliveries). */
export interface FakeGithubExtension {
  /** Answers a request before any token check (endpoints that authenticate on their own: an App's JWT ones). */
  readonly unauthenticated?: (req: FakeRequest) => FakeAnswer | undefined
  /** Answers a request of any account the fake knows, before the fake's own areas; undefined to pass it on. */
  readonly handle?: (req: FakeRequest) => FakeAnswer | undefined
  /** The account a token it issued stands for; `expired` for one past its expiry; undefined when not its own. */
  readonly account?: (token: string) => FakeAccount | 'expired' | undefined
}

/** A failure the next matching requests get instead of their answer. */
export interface FakeFailure {
  /** `GET`, `POST`, `PATCH`; any when absent. */
  readonly method?: string
  /** Tested against the request's path (`/graphql`, `/repos/o/r/issues/comments/1001`). */
  readonly path?: RegExp
  readonly status: number
  readonly message?: string
  /** The whole answer's body instead of `{ message }` (a GitHub error body such as a review's 422). */
  readonly body?: unknown
  /** How many requests fail; 1 by default. */
  readonly times?: number
}

/** One request, once answered. */
export interface FakeRequestRecord {
  readonly method: string
  /** The path and query, as sent. */
  readonly target: string
  readonly status: number
  /** The account it was made as; absent when unauthenticated or refused. */
  readonly login?: string
  /** What it changed, in a few words (`edited comment 1001 on o/r#1 (edit 2): ...`). */
  readonly note?: string
}

/** Options of {@link startFakeGithub}. */
export interface FakeGithubOptions {
  /** 127.0.0.1 by default. */
  readonly host?: string | undefined
  /** 0 (a free port) by default. */
  readonly port?: number | undefined
  /** The token clients must send; {@link DEFAULT_FAKE_TOKEN} by default. */
  readonly token?: string | undefined
  /** The account that token stands for; {@link DEFAULT_FAKE_LOGIN} by default. */
  readonly login?: string | undefined
  readonly extensions?: readonly FakeGithubExtension[] | undefined
  /**
   * Called once per request, once its answer is decided (GitHub's state already changed) and before the answer is
   * written: a test that kills the client here kills it between GitHub's change and the client's reading of it.
   */
  readonly onRequest?: ((record: FakeRequestRecord) => void) | undefined
}

/** A running fake GitHub. */
export interface FakeGithub {
  /** Its address, for a REST client given a base URL (Octokit) and for its admin endpoints: `http://127.0.0.1:PORT`. */
  readonly url: string
  /** The token clients must send, and the login it stands for. */
  readonly token: string
  readonly login: string
  readonly state: FakeGithubState
  /** The variables gh needs to use this fake (host, proxy, a config folder of its own holding the token). */
  readonly ghEnv: Readonly<Record<string, string>>
  /** gh's environment for this fake, over `base` (`process.env` by default; its `GH_TOKEN` and `GITHUB_TOKEN`
   * are left out: gh would send them instead). */
  env(base?: NodeJS.ProcessEnv): NodeJS.ProcessEnv
  /** Declares a pull request, or moves its head. */
  setHead(repo: string, number: number, head: string): void
  /** Sets the changed files the pull request shows at `head` (`GET /pulls/{n}/files` lists them while it is the head; reviews at `head` are checked against them). */
  setFiles(repo: string, number: number, head: string, files: readonly FakeFile[]): void
  /** The pull request's reviews, oldest first, with their inline comments. */
  reviews(repo: string, number: number): FakeReview[]
  /** Sets the pull request's base commit (`base.sha` of `GET /pulls/N`). */
  setBase(repo: string, number: number, base: string): void
  /** Adds a commit and its parents to the repository's graph, which the compare API walks (`identical`, `ahead`, `behind`, `diverged`). */
  addCommit(repo: string, sha: string, parents?: readonly string[]): void
  /** The pull request's review threads (one per inline comment of a submitted review), oldest first. */
  threads(repo: string, number: number): FakeThread[]
  /** A reply by `login` (someone else, say) in the thread of review comment `commentId`, as the API would post it. */
  reply(repo: string, number: number, commentId: number, body: string, login: string): void
  /** Marks a thread outdated (later commits changed its lines): GraphQL then shows `line: null`. */
  outdateThread(id: string): void
  /** The repository's check runs, oldest first, as they stand (updates applied, annotations appended). */
  checkRuns(repo: string): FakeCheckRun[]
  /** The repository's commit statuses, oldest first. */
  statuses(repo: string): FakeStatus[]
  /** Another token the fake accepts, standing for another account. */
  addAccount(token: string, login: string): void
  /** A comment written outside the API (someone else's), not recorded in {@link writes}. */
  addComment(repo: string, number: number, body: string, login: string): FakeComment
  comments(repo: string, number: number): FakeComment[]
  /** The comments written through the API, in order. */
  writes(): CommentWrite[]
  /** Every request, as `METHOD /path?query`. */
  requests(): string[]
  fail(failure: FakeFailure): void
  close(): Promise<void>
}

/**
 * Starts a fake GitHub.
 *
 * @example
 * const github = await startFakeGithub({ onRequest: (r) => console.log(formatRequestRecord(r)) })
 * github.setHead('octocat/hello-world', 42, 'a'.repeat(40))
 * spawn('gh', ['pr', 'view', '42', '--repo', 'octocat/hello-world', '--json', 'headRefOid'], { env: github.env() })
 */
export async function startFakeGithub(options: FakeGithubOptions = {}): Promise<FakeGithub> {
  const token = options.token ?? DEFAULT_FAKE_TOKEN
  const login = options.login ?? DEFAULT_FAKE_LOGIN
  const extensions = options.extensions ?? []
  const accounts = new Map([[token, login]])
  const state = createFakeGithubState()
  const requests: string[] = []
  const failures: { failure: FakeFailure; left: number }[] = []

  function accountOf(req: IncomingMessage): FakeAccount | undefined {
    const sent = (req.headers.authorization ?? '').replace(/^(token|bearer) /i, '')
    const known = accounts.get(sent)
    if (known !== undefined) return { login: known }
    for (const extension of extensions) {
      const account = extension.account?.(sent)
      if (account === 'expired') return undefined
      if (account !== undefined) return account
    }
    return undefined
  }

  // The order of GitHub's own checks: who is asking (401), whether the token may see the repository (404), the answer.
  function answer(req: FakeRequest, incoming: IncomingMessage, note: (text: string) => void): { answer: FakeAnswer; login?: string } {
    const failure = failures.find(({ failure: f, left }) => left > 0 && (f.method ?? req.method) === req.method && (f.path?.test(req.path) ?? true))
    if (failure !== undefined) {
      failure.left -= 1
      return { answer: [failure.failure.status, failure.failure.body ?? { message: failure.failure.message ?? 'Fake failure' }] }
    }
    const found = findRoute(ROUTES, req)
    if (found?.route.unauthenticated === true) return { answer: found.route.answer(req, found.match, { state, account: undefined, note }) }
    for (const extension of extensions) {
      const served = extension.unauthenticated?.(req)
      if (served !== undefined) return { answer: served }
    }
    const account = accountOf(incoming)
    if (account === undefined) return { answer: [401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' }] }
    // An installation token scoped to some repositories sees no other: GitHub answers 404, as for a private one.
    const repo = /^\/repos\/([^/]+\/[^/]+)\//.exec(req.path)?.[1]
    // GraphQL names its repository in the document: its answers check the account's repositories themselves.
    if (account.repos !== undefined && req.path !== '/graphql' && (repo === undefined || !account.repos.has(repo))) return { answer: [404, { message: 'Not Found' }], login: account.login }
    for (const extension of extensions) {
      const served = extension.handle?.(req)
      if (served !== undefined) return { answer: served, login: account.login }
    }
    if (found !== undefined) return { answer: found.route.answer(req, found.match, { state, account, note }), login: account.login }
    return { answer: [404, { message: `the fake GitHub API does not serve ${req.method} ${req.path}` }], login: account.login }
  }

  const server = createServer((incoming, res) => {
    // gh sends the absolute form to its proxy; a direct request (Octokit, curl, the admin commands) has a path only.
    const absolute = /^https?:\/\//i.test(incoming.url ?? '')
    const url = new URL(incoming.url ?? '/', absolute ? undefined : `http://${incoming.headers.host ?? '127.0.0.1'}`)
    const origin = absolute ? FAKE_API_ORIGIN : url.origin
    const method = incoming.method ?? 'GET'
    const target = `${url.pathname}${url.search}`
    requests.push(`${method} ${target}`)
    readBody(incoming).then(
      (body) => {
        const notes: string[] = []
        const req: FakeRequest = { method, path: url.pathname, query: url.searchParams, headers: incoming.headers, body, origin }
        let answered: { answer: FakeAnswer; login?: string }
        try {
          answered = answer(req, incoming, (text) => notes.push(text))
        } catch (error) {
          answered = { answer: [500, { message: `the fake GitHub failed: ${String(error)}` }] }
        }
        const [status, json, headers] = answered.answer
        const record: FakeRequestRecord = { method, target, status }
        options.onRequest?.({ ...record, ...(answered.login === undefined ? {} : { login: answered.login }), ...(notes.length === 0 ? {} : { note: notes.join('; ') }) })
        reply(res, status, json, headers)
      },
      () => reply(res, 400, { message: 'the request body could not be read' }),
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${host}:${address.port}`
  const configDir = mkdtempSync(join(tmpdir(), 'hookpilot-gh-config-'))
  writeFakeGhConfig(configDir, token, login)
  const ghEnv = fakeGhEnvironment(url, configDir)

  return {
    url,
    token,
    login,
    state,
    ghEnv,
    env: (base = process.env) => {
      const { GH_TOKEN: _token, GITHUB_TOKEN: _other, ...rest } = base
      return { ...rest, ...ghEnv }
    },
    setHead: (repo, number, head) => void state.setHead(repo, number, head),
    setFiles: (repo, number, head, files) => state.setFiles(repo, number, head, files),
    reviews: (repo, number) => state.reviews(repo, number),
    setBase: (repo, number, base) => state.setBase(repo, number, base),
    addCommit: (repo, sha, parents = []) => state.addCommit(repo, sha, parents),
    threads: (repo, number) => state.threads(repo, number),
    reply: (repo, number, commentId, body, author) => {
      if (state.reply(repo, number, commentId, body, author) === undefined) throw new Error(`no review thread of ${repo}#${number} holds comment ${commentId}`)
    },
    outdateThread: (id) => state.outdateThread(id),
    checkRuns: (repo) => state.checkRuns(repo),
    statuses: (repo) => state.statuses(repo),
    addAccount: (other, otherLogin) => void accounts.set(other, otherLogin),
    addComment: (repo, number, body, author) => state.createComment(repo, number, body, author, false),
    comments: (repo, number) => state.comments(repo, number),
    writes: () => state.writes(),
    requests: () => [...requests],
    fail: (failure) => void failures.push({ failure, left: failure.times ?? 1 }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
        rmSync(configDir, { recursive: true, force: true })
      }),
  }
}

/** A request as one log line: `PATCH /repos/o/r/issues/comments/1001 → 200 hookpilot-bot · edited comment 1001 ...`. */
export function formatRequestRecord(record: FakeRequestRecord): string {
  const who = record.login === undefined ? '' : ` ${record.login}`
  const note = record.note === undefined ? '' : ` · ${record.note}`
  return `${record.method} ${record.target} → ${record.status}${who}${note}`
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => resolve(Buffer.concat(chunks).toString('utf8'))).on('error', reject)
  })
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body))
}
