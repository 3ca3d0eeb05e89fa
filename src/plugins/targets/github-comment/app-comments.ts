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
import { installationScope, type InstallationScope } from '../../github-app/installation.js'
import { notAppRoute } from '../../github-app/app-routes.js'
import { requestFailure, type RequestCall } from './request-failure.js'
import { PER_PAGE, type CommentApi } from './comment-api.js'
import { errorStrings, RESOLVE_THREAD_MUTATION, REVIEW_PER_PAGE, REVIEW_THREADS_QUERY, threadPageOf, type ReviewApi } from './review-api.js'
import type { AppPermissions } from '../../github-app/permissions.js'
import type { ChangedFile } from '../../../core/review/diff-lines.js'
import { annotationPages, type CheckApi, type CheckConclusion, type CheckOptions, type CheckResult } from './review-check.js'

/** What one delivery through the App needs. */
export interface AppDelivery {
  readonly repo: string
  readonly prNumber: string
  readonly payload: JsonObject | undefined
  readonly timeoutMs: number
  readonly signal: AbortSignal
  /** The route the event came by. */
  readonly route: string
  /** Whether that route's deliveries are verified with the App's own webhook secret only (else no token is minted). */
  readonly fromApp: boolean
  /** The token's permissions; {@link DELIVERY_PERMISSIONS} by default (review mode asks `pull_requests: write`). */
  readonly permissions?: AppPermissions | undefined
}

/**
 * The pull request of `delivery`, through `app`; fails (not retried) when the event names no installation, before
 * any call. Every call, the App's identity included, fails as a {@link DeliveryError} classed like the others
 * (the network, 429 and 5xx are passing failures the delivery schedule retries).
 */
export function appComments(app: GithubApp, delivery: AppDelivery): CommentApi & ReviewApi & CheckApi {
  const scope = installationScope(delivery.payload)
  const [owner = '', repo = ''] = delivery.repo.split('/')
  const target = { owner, repo }
  const issueNumber = Number(delivery.prNumber)
  let client: Promise<Octokit> | undefined

  /** The installation and repository, or the documented refusal: checked before any call, the identity's included. */
  function scoped(): InstallationScope {
    if (!delivery.fromApp) throw new DeliveryError('github_comment', `${notAppRoute(delivery.route)}; nothing was posted`)
    if (scope !== undefined) return scope
    throw new DeliveryError('github_comment', 'the event names no GitHub App installation (payload.installation.id) or repository: only a delivery of the App\'s own webhook can be answered as the App; nothing was posted')
  }

  /** One REST call, bounded by the target's time limit and the gateway's shutdown. */
  async function call<T>(what: RequestCall, send: (octokit: Octokit, signal: AbortSignal) => Promise<T>): Promise<T> {
    const installation = scoped()
    const timeout = AbortSignal.timeout(delivery.timeoutMs)
    const signal = AbortSignal.any([delivery.signal, timeout])
    try {
      client ??= app.installationClient(installation, delivery.permissions ?? DELIVERY_PERMISSIONS)
      return await send(await client, signal)
    } catch (err) {
      client = undefined
      throw failure(err, what, timeout)
    }
  }
  const failure = (err: unknown, what: RequestCall, timeout: AbortSignal) =>
    requestFailure(err, what, { timedOut: timeout.aborted, aborted: delivery.signal.aborted, timeoutMs: delivery.timeoutMs, repo: delivery.repo, prNumber: delivery.prNumber })

  /** The App's login (`GET /app` with its JWT, asked once per App), failing like every other call. */
  async function login(): Promise<string> {
    scoped()
    const timeout = AbortSignal.timeout(delivery.timeoutMs)
    try {
      // The identity is shared by every delivery, so it is not aborted with this one: only no longer waited for.
      return (await raced(app.identity(), AbortSignal.any([delivery.signal, timeout]))).login
    } catch (err) {
      throw failure(err, { doing: 'ask GitHub who the App is (GET /app)', repeatable: true }, timeout)
    }
  }
  const url = (data: { readonly html_url: string }) => data.html_url

  return {
    login,
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
    filesPage: (page) =>
      call({ doing: 'list the changed files', repeatable: true }, async (octokit, signal) => {
        const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', { ...target, pull_number: issueNumber, per_page: REVIEW_PER_PAGE, page, request: { signal } })
        return data.map((f): ChangedFile => ({ filename: f.filename, status: f.status, patch: f.patch, previous_filename: f.previous_filename }))
      }),
    reviewsPage: (page, marker) =>
      call({ doing: 'list the reviews', repeatable: true }, async (octokit, signal) => {
        const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', { ...target, pull_number: issueNumber, per_page: REVIEW_PER_PAGE, page, request: { signal } })
        return data.map((r) => ({ login: r.user?.login ?? '', marked: (r.body ?? '').startsWith(marker), url: r.html_url }))
      }),
    async createReview(review) {
      try {
        // Not repeatable: a review that timed out may have been created; the next try finds it by its marker.
        return await call({ doing: 'create the review', repeatable: false }, async (octokit, signal) => {
          const { data } = await octokit.request('POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews', { ...target, pull_number: issueNumber, ...review, comments: [...review.comments], request: { signal } })
          return { ok: true as const, url: data.html_url }
        })
      } catch (err) {
        const cause = DeliveryError.is(err) ? (err.cause as { status?: unknown, response?: { data?: unknown } } | undefined) : undefined
        if (cause?.status === 422) return { ok: false, errors: errorStrings(cause.response?.data) }
        throw err
      }
    },
    pullCommits: () =>
      call({ doing: 'read the pull request head and base', repeatable: true }, async (octokit, signal) => {
        const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...target, pull_number: issueNumber, request: { signal } })
        // The fake GitHub may leave the base out; GitHub always gives it.
        return { head: data.head.sha, base: (data.base as { sha?: string } | undefined)?.sha ?? '' }
      }),
    async compare(base, head) {
      try {
        return await call({ doing: `compare ${base.slice(0, 7)}...${head.slice(0, 7)}`, repeatable: true }, async (octokit, signal) =>
          (await octokit.request('GET /repos/{owner}/{repo}/compare/{basehead}', { ...target, basehead: `${base}...${head}`, per_page: 1, request: { signal } })).data.status)
      } catch (err) {
        // A commit GitHub no longer knows (a force-push made it unreachable): the history was rewritten.
        if (DeliveryError.is(err) && (err.cause as { status?: unknown } | undefined)?.status === 404) return 'missing'
        throw err
      }
    },
    threadsPage: (after) =>
      call({ doing: 'list the review threads', repeatable: true }, async (octokit, signal) => {
        const data = await graphql(octokit, 'list the review threads', REVIEW_THREADS_QUERY, { owner, name: repo, number: issueNumber, after: after ?? null, request: { signal } })
        const page = threadPageOf(data)
        if (page === undefined) throw new DeliveryError('github_comment', `GitHub's GraphQL API answered no review threads for ${delivery.repo}#${delivery.prNumber}`, { retryable: false })
        return page
      }),
    resolveThread: (id) =>
      call({ doing: `resolve review thread ${id}`, repeatable: true }, async (octokit, signal) => {
        await graphql(octokit, `resolve review thread ${id}`, RESOLVE_THREAD_MUTATION, { id, request: { signal } })
      }),
    // A check run per reviewed head (Checks API: App only, `checks: write`): created in progress when the agent
    // starts, and that same run completed, found again by listing the head's runs of the check's name.
    async startCheck(name, head, { link, job, reuse }) {
      if (reuse && (await runsOf(name, head)).running.some((r) => ownedBy(r, job))) return
      await call({ doing: 'start the check run', repeatable: false }, (octokit, signal) =>
        octokit.request('POST /repos/{owner}/{repo}/check-runs', { ...target, name, head_sha: head, status: 'in_progress', started_at: new Date().toISOString(), ...written({ link, job }), request: { signal } }))
    },
    async finishCheck(name, head, result, options) {
      const { running } = await runsOf(name, head)
      // The run this job marked is the one completed in full; the newest running one when it marked none.
      const [newest, ...older] = [...running.filter((r) => ownedBy(r, options.job)), ...running.filter((r) => !ownedBy(r, options.job))]
      await complete(newest?.id, name, head, result, options)
      // Runs a job left in progress when it ended without a try (superseded while it waited, a crash) say the same.
      for (const run of older) await complete(run.id, name, head, { ...result, annotations: [] }, options)
    },
    async settleRunning(name, head, fallback, options) {
      const { running, done: [last] } = await runsOf(name, head)
      const marked = running.find((r) => ownedBy(r, options.job))
      if (marked === undefined) return
      const conclusion = last?.conclusion
      // The head's last completed check is what its standing review said.
      const standing = conclusion === undefined || conclusion === null
        ? fallback
        : { conclusion, title: last?.output.title ?? fallback.title, summary: last?.output.summary ?? fallback.summary, annotations: [] }
      await complete(marked.id, name, head, standing, options)
    },
  }

  /**
   * This App's check runs named `name` on `head`, newest first, running and completed apart: one request (GitHub
   * lists 100 a page; a head has a handful of runs of one name).
   */
  async function runsOf(name: string, head: string) {
    const slug = (await login()).replace(/\[bot\]$/, '')
    const runs = await call({ doing: `list the check runs of ${head.slice(0, 7)}`, repeatable: true }, async (octokit, signal) =>
      (await octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { ...target, ref: head, check_name: name, filter: 'all', per_page: REVIEW_PER_PAGE, request: { signal } })).data.check_runs)
    const own = runs.filter((r) => r.app?.slug === slug).map((r) => ({ ...r, id: Number(r.id) })).sort((a, b) => b.id - a.id)
    return { running: own.filter((r) => r.status !== 'completed'), done: own.filter((r) => r.status === 'completed') }
  }

  /** Completes run `id` with `result`, or creates it completed when there is no run to complete. */
  async function complete(id: number | undefined, name: string, head: string, result: CompletedCheck, options: CheckOptions): Promise<void> {
    // The first request completes the run; GitHub appends the annotations of each further one (50 per request).
    const [first = [], ...more] = annotationPages(result.annotations)
    const output = (annotations: typeof first) => ({ title: result.title, summary: result.summary, annotations })
    const done = { status: 'completed' as const, conclusion: result.conclusion, completed_at: new Date().toISOString(), output: output(first) }
    let runId: number
    if (id === undefined) {
      // Not repeatable: a create that timed out may have been made; the next try completes the run it finds.
      runId = await call({ doing: 'create the completed check run', repeatable: false }, async (octokit, signal) =>
        Number((await octokit.request('POST /repos/{owner}/{repo}/check-runs', { ...target, name, head_sha: head, ...done, ...written(options), request: { signal } })).data.id))
    } else {
      runId = id
      await call({ doing: `complete check run ${id}`, repeatable: true }, (octokit, signal) =>
        octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', { ...target, check_run_id: id, ...done, ...linked(options.link), request: { signal } }))
    }
    for (const page of more) {
      const patched = runId
      await call({ doing: `add annotations to check run ${patched}`, repeatable: false }, (octokit, signal) =>
        octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', { ...target, check_run_id: patched, output: output(page), request: { signal } }))
    }
  }
}

/** A completion as GitHub takes it: one of review mode's results, or a conclusion copied from a head's last run. */
type CompletedCheck = Omit<CheckResult, 'conclusion'> & { readonly conclusion: CheckConclusion | 'action_required' | 'timed_out' }

/** A check run's `details_url`, when there is a link. */
const linked = (link: string | undefined) => (link === undefined ? {} : { details_url: link })
/** A new check run's link and the job that marks it (`external_id`). */
const written = ({ link, job }: CheckOptions) => ({ ...linked(link), ...(job === undefined ? {} : { external_id: job }) })
/** Whether `run` was written by `job` (its `external_id`; none for a job without an id). */
const ownedBy = (run: { readonly external_id: string | null }, job: string | undefined) => (run.external_id ?? undefined) === job

/**
 * A GraphQL call. GitHub answers most failures with HTTP 200 and `errors[]` (Octokit throws them as a
 * GraphqlResponseError, with no status): they are said as GitHub's, not taken for a network failure.
 */
async function graphql(octokit: Octokit, doing: string, query: string, variables: Record<string, unknown>): Promise<unknown> {
  try {
    return await octokit.graphql(query, variables)
  } catch (err) {
    const errors = (err as { errors?: unknown }).errors
    if (!Array.isArray(errors)) throw err
    const said = errors.map((e: unknown) => (e as { message?: unknown } | null)?.message).filter((m) => typeof m === 'string').join('; ')
    throw new DeliveryError('github_comment', `GitHub's GraphQL API refused to ${doing}: ${said.slice(0, 300) || 'no reason given'}`, { cause: err })
  }
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function raced<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error)
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason as Error)
    signal.addEventListener('abort', stop, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop))
  })
}
