/**
 * The gateway's own handle on a pull request as a GitHub App ({@link PullRequestHost}), for the policy layer: the
 * pull request's facts, a file at a commit through the contents API (a repository's policy file, read at the
 * base branch's commit), a comment, the route's notice (one comment, edited in place), a reaction to a command,
 * a commenter's permission. Each call is the event's installation's, scoped to its repository, with
 * {@link POLICY_PERMISSIONS}, and fails as a DeliveryError classed like the target's others.
 */
import type { Octokit } from '@octokit/core'
import type { HostFile, PullFacts, PullRequestHost, PullRequestWhere, RepoPermission } from '../../../core/code-host-types.js'
import { DeliveryError } from '../../../core/errors.js'
import type { GithubApp } from '../../github-app/app.js'
import { notAppRoute } from '../../github-app/app-routes.js'
import { installationScope } from '../../github-app/installation.js'
import type { AppPermissions } from '../../github-app/permissions.js'
import { appComments } from './app-comments.js'
import { requestFailure, type RequestCall } from './request-failure.js'
import { writeSticky } from './sticky-comment.js'
import { prNumberProblem, repoProblem } from './validate.js'

/**
 * What the policy does on a pull request: read its files (contents), read it and react to a comment on its diff
 * (pull requests), comment and react in its conversation (issues).
 */
export const POLICY_PERMISSIONS: AppPermissions = { contents: 'read', issues: 'write', pull_requests: 'write' }

/** Paths of a pull request's changed files read for the policy: GitHub lists at most 3,000. */
const MAX_FILE_PAGES = 30

/** What one handle needs besides the App and the pull request. */
export interface AppPullRequestOptions {
  readonly timeoutMs: number
  /** Whether the route's events are verified with the App's own webhook secret only (else no token is minted). */
  readonly fromApp: boolean
}

/** The notice's marker: one notice per route and pull request. */
export function noticeMarker(route: string): string {
  return `<!-- hookpilot-notice:${route} -->`
}

/**
 * The pull request `where` names (`deliver_extra.repo` and `pr_number`), through `app`; undefined when those do
 * not name one GitHub could have.
 */
export function appPullRequest(app: GithubApp, where: PullRequestWhere, options: AppPullRequestOptions): PullRequestHost | undefined {
  const repo = where.extra['repo'] ?? ''
  const prNumber = where.extra['pr_number'] ?? ''
  if (repoProblem(repo) !== undefined || prNumberProblem(prNumber) !== undefined) return undefined
  const [owner = '', name = ''] = repo.split('/')
  const target = { owner, repo: name }
  const number = Number(prNumber)
  const scope = installationScope(where.payload)
  const comments = appComments(app, { repo, prNumber, payload: where.payload, timeoutMs: options.timeoutMs, signal: where.signal, route: where.route, fromApp: options.fromApp, permissions: POLICY_PERMISSIONS })
  let client: Promise<Octokit> | undefined

  async function call<T>(what: RequestCall, send: (octokit: Octokit, signal: AbortSignal) => Promise<T>): Promise<T> {
    if (!options.fromApp) throw new DeliveryError('github_comment', notAppRoute(where.route))
    if (scope === undefined) throw new DeliveryError('github_comment', 'the event names no GitHub App installation (payload.installation.id) or repository')
    const timeout = AbortSignal.timeout(options.timeoutMs)
    const signal = AbortSignal.any([where.signal, timeout])
    try {
      client ??= app.installationClient(scope, POLICY_PERMISSIONS)
      return await send(await client, signal)
    } catch (err) {
      client = undefined
      throw requestFailure(err, what, { timedOut: timeout.aborted, aborted: where.signal.aborted, timeoutMs: options.timeoutMs, repo, prNumber })
    }
  }
  const status = (err: unknown) => (DeliveryError.is(err) ? (err.cause as { status?: unknown } | undefined)?.status : undefined)

  return {
    repo,
    number,
    facts: () =>
      call({ doing: 'read the pull request', repeatable: true }, async (octokit, signal): Promise<PullFacts> => {
        const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...target, pull_number: number, request: { signal } })
        return {
          repo,
          number,
          title: data.title,
          body: data.body ?? '',
          draft: data.draft === true,
          author: data.user.login,
          authorIsBot: data.user.type === 'Bot',
          labels: data.labels.map((label) => label.name),
          baseRef: data.base.ref,
          baseSha: data.base.sha,
          headRef: data.head.ref,
          headSha: data.head.sha,
        }
      }),
    async changedPaths() {
      const paths: string[] = []
      for (let page = 1; page <= MAX_FILE_PAGES; page++) {
        const rows = await call({ doing: 'list the changed files', repeatable: true }, async (octokit, signal) =>
          (await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', { ...target, pull_number: number, per_page: 100, page, request: { signal } })).data)
        paths.push(...rows.map((row) => row.filename))
        if (rows.length < 100) break
      }
      return paths
    },
    async readFile(path, ref, maxBytes): Promise<HostFile> {
      try {
        return await call({ doing: `read ${path} at ${ref.slice(0, 7)}`, repeatable: true }, async (octokit, signal): Promise<HostFile> => {
          const { data } = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { ...target, path, ref, request: { signal } })
          if (Array.isArray(data) || data.type !== 'file') return { kind: 'missing' }
          if (data.size > maxBytes) return { kind: 'too_large', bytes: data.size }
          if (!('content' in data) || data.encoding !== 'base64') return { kind: 'too_large', bytes: data.size }
          return { kind: 'found', text: Buffer.from(data.content, 'base64').toString('utf8') }
        })
      } catch (err) {
        if (status(err) === 404) return { kind: 'missing' }
        throw err
      }
    },
    reply: (body) => comments.post(body),
    notice: async (body) => writeSticky(comments, noticeMarker(where.route), await comments.login(), `${noticeMarker(where.route)}\n${body}`),
    async react(comment, content) {
      await call({ doing: `react to comment ${comment.id}`, repeatable: true }, (octokit, signal) =>
        comment.on === 'issue'
          ? octokit.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', { ...target, comment_id: comment.id, content, request: { signal } })
          : octokit.request('POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions', { ...target, comment_id: comment.id, content, request: { signal } }))
    },
    async permission({ login }): Promise<RepoPermission> {
      try {
        return await call({ doing: `read ${login}'s permission`, repeatable: true }, async (octokit, signal) => {
          const { data } = await octokit.request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', { ...target, username: login, request: { signal } })
          return (['admin', 'maintain', 'write', 'triage', 'read'] as const).find((p) => p === data.role_name || p === data.permission) ?? 'none'
        })
      } catch (err) {
        if (status(err) === 404) return 'none'
        throw err
      }
    },
  }
}
