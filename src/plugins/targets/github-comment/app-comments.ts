/**
 * {@link CommentApi} through the REST API as a GitHub App: the comments carry the App's name (`my-app[bot]`),
 * and each delivery's token is the event's installation's, scoped to its one repository with what a delivery
 * needs (issues: write, pull_requests: read). No gh runs.
 */
import type { Octokit } from '@octokit/core'
import { DeliveryError } from '../../../core/errors.js'
import type { JsonObject } from '../../../core/types.js'
import type { GithubApp } from '../../github-app/app.js'
import { DELIVERY_PERMISSIONS } from '../../github-app/permissions.js'
import { installationScope } from '../../github-app/installation.js'
import { requestFailure, type RequestCall } from './request-failure.js'
import { PER_PAGE, type CommentApi } from './comment-api.js'

/** What one delivery through the App needs. */
export interface AppDelivery {
  readonly repo: string
  readonly prNumber: string
  readonly payload: JsonObject | undefined
  readonly timeoutMs: number
  readonly signal: AbortSignal
}

/** The pull request of `delivery`, through `app`; fails (not retried) when the event names no installation. */
export function appComments(app: GithubApp, delivery: AppDelivery): CommentApi {
  const scope = installationScope(delivery.payload)
  const [owner = '', repo = ''] = delivery.repo.split('/')
  const target = { owner, repo }
  const issueNumber = Number(delivery.prNumber)
  let client: Promise<Octokit> | undefined

  /** One REST call, bounded by the target's time limit and the gateway's shutdown. */
  async function call<T>(what: RequestCall, send: (octokit: Octokit, signal: AbortSignal) => Promise<T>): Promise<T> {
    if (scope === undefined) {
      throw new DeliveryError('github_comment', 'the event names no GitHub App installation (payload.installation.id) or repository: only a delivery of the App\'s own webhook can be answered as the App; nothing was posted')
    }
    const timeout = AbortSignal.timeout(delivery.timeoutMs)
    const signal = AbortSignal.any([delivery.signal, timeout])
    try {
      client ??= app.installationClient(scope, DELIVERY_PERMISSIONS)
      return await send(await client, signal)
    } catch (err) {
      client = undefined
      throw requestFailure(err, what, { timedOut: timeout.aborted, aborted: delivery.signal.aborted, timeoutMs: delivery.timeoutMs, repo: delivery.repo, prNumber: delivery.prNumber })
    }
  }
  const url = (data: { readonly html_url: string }) => data.html_url

  return {
    login: async () => (await app.identity()).login,
    listPage: (page, marker) =>
      call({ doing: 'list the comments', repeatable: true }, async (octokit, signal) => {
        const { data } = await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...target, issue_number: issueNumber, per_page: PER_PAGE, page, request: { signal } })
        return data.map((c) => ({ id: String(c.id), login: c.user?.login ?? '', marked: (c.body ?? '').startsWith(marker) }))
      }),
    async edit(id, body) {
      try {
        return await call({ doing: `edit comment ${id}`, repeatable: true }, async (octokit, signal) =>
          url((await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { ...target, comment_id: Number(id), body, request: { signal } })).data))
      } catch (err) {
        if (DeliveryError.is(err) && err.cause !== undefined && (err.cause as { status?: unknown }).status === 404) return undefined
        throw err
      }
    },
    create: (body) =>
      call({ doing: 'create the comment', repeatable: true }, async (octokit, signal) =>
        url((await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...target, issue_number: issueNumber, body, request: { signal } })).data)),
    post: (body) =>
      call({ repeatable: false }, async (octokit, signal) =>
        url((await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...target, issue_number: issueNumber, body, request: { signal } })).data)),
    head: () =>
      call({ doing: 'read the pull request head', repeatable: true }, async (octokit, signal) =>
        (await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...target, pull_number: issueNumber, request: { signal } })).data.head.sha),
  }
}
