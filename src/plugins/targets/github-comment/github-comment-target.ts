import { DeliveryError, messageOf } from '../../../core/errors.js'
import type { AgentAnswer, Clock, DeliveryContext, DeliveryReceipt, DeliveryTarget, EndedJob, JsonObject, Logger, NoteStore, PluginContext, PromptRequest, Route, StartedJob } from '../../../core/types.js'
import { reviewPromptVariables, settleReview, type ReviewScope } from './review-memory-note.js'
import { ownOpenThreads } from './review-threads.js'
import type { GithubApp } from '../../github-app/app.js'
import { appComments } from './app-comments.js'
import type { CommentApi } from './comment-api.js'
import { commentBody, stickyBody } from './comment-body.js'
import { ghComments } from './gh-comments.js'
import { headFollowUp, payloadHead, staleHead } from './head-check.js'
import { writeSticky } from './sticky-comment.js'
import { ghReviews } from './gh-reviews.js'
import { createPullReview, findOwnReview, parseReview, pullReviewMarker, readChangedFiles } from './pull-review.js'
import type { ReviewApi } from './review-api.js'
import type { ChangedFile } from '../../../core/review/diff-lines.js'
import type { Severity } from '../../../core/review/document.js'
import type { AppPermissions } from '../../github-app/permissions.js'
import { endedCheck, NO_CHECK, reviewedCheck, standingCheck, supersededCheck, type CheckApi } from './review-check.js'
import { ghStatuses } from './gh-statuses.js'
import { appPullRequest } from './app-pull-request.js'
import { answeredHead, headToMark } from '../../shared/review-start.js'

/** Review mode's App token: reviews are pull requests' writes (the summary comment stays an issue's)... */
const REVIEW_PERMISSIONS: AppPermissions = { issues: 'write', pull_requests: 'write' }
/** ...and its check a check run's, unless the route turns the check off (`deliver_extra.check: false`). */
const CHECKED_REVIEW_PERMISSIONS: AppPermissions = { ...REVIEW_PERMISSIONS, checks: 'write' }

/** Heads whose changed files are kept: a review reads a head's diff once, a retry of it reads none. */
const FILES_CACHE_HEADS = 64
import { overrideProblem, prNumberProblem, repoProblem, type CommentMode } from './validate.js'
import { stickyMarker } from '../../shared/hidden-markers.js'
import { reviewStatusName } from '../../shared/review-status-name.js'

export { commentBody, GITHUB_COMMENT_LIMIT } from './comment-body.js'

/** Options of {@link githubCommentDelivery} (`platforms.github`). */
export interface GithubCommentOptions {
  /** The gh executable: a name looked up on PATH or a path (`platforms.github.gh_path`). Defaults to `gh`. */
  readonly ghPath?: string | undefined
  /** Each gh run is stopped after this long (`platforms.github.timeout_seconds` × 1000). Defaults to 60,000 ms. */
  readonly timeoutMs?: number | undefined
  /** gh's whole environment (where `GH_TOKEN` or `GH_CONFIG_DIR` come from). Defaults to the gateway's own. */
  readonly env?: NodeJS.ProcessEnv | undefined
  /** gh's working directory; the gateway's own by default. */
  readonly cwd?: string | undefined
  /**
   * `new` (default): a new comment for each answer. `sticky`: one comment per route and pull request, edited in
   * place, ending with a footer naming the head it reviewed. `review`: one pull-request review per route and
   * reviewed head, findings inline on that head's diff (pull-review.ts). A route's `deliver_extra.mode` overrides it.
   */
  readonly mode?: CommentMode | undefined
  /**
   * Before posting, ask GitHub for the pull request's head and drop the answer (receipt `superseded`) when it is
   * no longer the payload's `pull_request.head.sha`. A route's `deliver_extra.check_head` overrides it.
   */
  readonly checkHead?: boolean | undefined
  /**
   * The account that posts, for sticky mode; asked once when absent (`gh api user`, or the App's `GET /app`).
   * gh given an App's installation token must be told (`my-app[bot]`).
   */
  readonly login?: string | undefined
  /**
   * Post as this GitHub App (`platforms.github_app`) through the REST API instead of gh: each delivery with a
   * token of the event's installation, scoped to its repository. gh is then not run at all.
   */
  readonly app?: GithubApp | undefined
  /**
   * With `app`: whether a route's deliveries are verified with the App's own webhook secret only, so its events
   * may name the installation a token is minted for; the others fail without a call. The plugin passes the
   * configuration's check (`platforms.github_app.webhook_secret`); every route counts when left out.
   */
  readonly appRoute?: ((route: string) => boolean) | undefined
  /** The time the footer shows; the machine's by default. */
  readonly clock?: Clock | undefined
  /**
   * The status page's address as people reach it (`platforms.github.status_url`, e.g.
   * `https://hooks.example.com/status`): review mode's check links to its job there (`details_url`, a status's
   * `target_url`). No link when absent.
   */
  readonly statusUrl?: string | undefined
}

/**
 * The `github_comment` delivery target, through gh (argument arrays, never a shell; text on stdin), or through
 * the REST API as a GitHub App when `app` is given. `repo` and `pr_number` come from the route's
 * `deliver_extra` and are checked before anything runs. New mode posts a comment (`gh pr comment`); sticky mode
 * finds the route's own comment and edits it, or creates it when there is none. A longer answer than GitHub
 * takes is cut, with a note.
 *
 * @example
 * ```ts
 * const target = githubCommentDelivery({ ghPath: '/usr/local/bin/gh', mode: 'sticky', checkHead: true })
 * // route: deliver: github_comment, deliver_extra: { repo: "{repository.full_name}", pr_number: "{number}" }
 * ```
 */
export function githubCommentDelivery(options: GithubCommentOptions = {}): DeliveryTarget {
  const ghPath = options.ghPath ?? 'gh'
  const timeoutMs = options.timeoutMs ?? 60_000
  const clock = options.clock ?? Date.now
  // The account is asked once per target; a failed ask is asked again on the next delivery.
  let login: Promise<string> | undefined = options.login === undefined ? undefined : Promise.resolve(options.login)
  const ownLogin = (api: CommentApi) => (login ??= api.login().catch((error: unknown) => {
    login = undefined
    throw error
  }))
  // Review mode: each head's changed files, read once (a failed read is read again next time); the oldest go first.
  const filesByHead = new Map<string, Promise<readonly ChangedFile[]>>()
  const filesAt = (key: string, api: ReviewApi): Promise<readonly ChangedFile[]> => {
    let files = filesByHead.get(key)
    if (files === undefined) {
      files = readChangedFiles(api)
      files.catch(() => filesByHead.delete(key))
      filesByHead.set(key, files)
      if (filesByHead.size > FILES_CACHE_HEADS) filesByHead.delete(filesByHead.keys().next().value!)
    }
    return files
  }

  /** The page of job `job` on the status page, when its address is configured. */
  const jobLink = (job: string | undefined) => (options.statusUrl === undefined || job === undefined ? undefined : `${options.statusUrl}#job-${encodeURIComponent(job)}`)
  /** The review APIs of one delivery (or one prompt's look before the run): the App's, else gh's. */
  const reviewApisOf = (request: PromptRequest, signal: AbortSignal) => {
    const repo = request.extra['repo'] ?? ''
    const prNumber = request.extra['pr_number'] ?? ''
    const checked = request.extra['check'] !== 'false'
    const runner = { ghPath, repo, prNumber, timeoutMs, env: options.env, cwd: options.cwd, signal }
    const app = options.app === undefined
      ? undefined
      : appComments(options.app, { repo, prNumber, payload: request.payload, timeoutMs, signal, route: request.route, fromApp: options.appRoute?.(request.route) ?? true, permissions: checked ? CHECKED_REVIEW_PERMISSIONS : REVIEW_PERMISSIONS })
    return { app, runner }
  }
  /** Whether `mode` is review mode and the route remembers its reviews (`deliver_extra.incremental`, on by default). */
  const incrementalIn = (extra: Readonly<Record<string, string>>) =>
    ((extra['mode'] as CommentMode | undefined) ?? options.mode ?? 'new') === 'review' && extra['incremental'] !== 'false'
  /** What incremental reviews of a delivery's pull request are told. */
  const scopeOf = (request: PromptRequest, notes: NoteStore | undefined, log: Logger): ReviewScope => ({
    route: request.route, repo: request.extra['repo'] ?? '', prNumber: request.extra['pr_number'] ?? '', incremental: incrementalIn(request.extra), notes, log,
  })

  return {
    name: 'github_comment',
    publishes: true,
    checkRoute: (route) => routeProblem(route) ?? policyProblem(route, options.app !== undefined),
    // A repository's policy file, commands and notices: as the App only (gh has no installation to scope them to).
    pullRequest: (where) =>
      options.app === undefined ? undefined : appPullRequest(options.app, where, { timeoutMs, fromApp: options.appRoute?.(where.route) ?? true }),
    // Review mode takes a review document: a runner that can ask its model for the schema does.
    answerFormat: (route) => ((route.deliverExtra['mode'] ?? options.mode) === 'review' ? 'review' : 'text'),
    started,
    ended,
    notesNeeded(route) {
      // A templated mode is known at delivery only: counted as review mode when the platform's mode is.
      if (!incrementalIn(route.deliverExtra)) return undefined
      return 'its reviews remember the last reviewed head and its open findings, for incremental reviews; deliver_extra.incremental: "false" reviews in full each time and keeps none'
    },
    /**
     * Review mode gives the prompt `{review.head}`, `{review.base}`, `{review.previous_head}`, `{review.mode}`
     * (`full` | `incremental`) and `{review.open_findings}` (review-memory-note.ts); other modes give nothing.
     */
    async promptVariables(request, ctx) {
      if (((request.extra['mode'] as CommentMode | undefined) ?? options.mode ?? 'new') !== 'review') return {}
      const problem = repoProblem(request.extra['repo'] ?? '') ?? prNumberProblem(request.extra['pr_number'] ?? '') ?? overrideProblem(request.extra)
      if (problem !== undefined) throw new DeliveryError('github_comment', `${problem}; the agent was not run`)
      const { app, runner } = reviewApisOf(request, ctx.signal)
      return reviewPromptVariables(app ?? ghReviews(runner), scopeOf(request, ctx.notes, ctx.log))
    },
    async deliver(answer, ctx): Promise<DeliveryReceipt> {
      const repo = answer.extra['repo'] ?? ''
      const prNumber = answer.extra['pr_number'] ?? ''
      const problem = repoProblem(repo) ?? prNumberProblem(prNumber) ?? overrideProblem(answer.extra)
      if (problem !== undefined) throw new DeliveryError('github_comment', `${problem}; ${options.app === undefined ? 'gh was not run' : 'nothing was posted'}`)
      const mode = (answer.extra['mode'] as CommentMode | undefined) ?? options.mode ?? 'new'
      const checked = mode === 'review' && answer.extra['check'] !== 'false'
      const runner = { ghPath, repo, prNumber, timeoutMs, env: options.env, cwd: options.cwd, signal: ctx.signal }
      const app = options.app === undefined
        ? undefined
        : appComments(options.app, { repo, prNumber, payload: answer.payload, timeoutMs, signal: ctx.signal, route: answer.route, fromApp: options.appRoute?.(answer.route) ?? true, ...(mode === 'review' ? { permissions: checked ? CHECKED_REVIEW_PERMISSIONS : REVIEW_PERMISSIONS } : {}) })
      const api: CommentApi = app ?? ghComments(runner)
      const checkHead = answer.extra['check_head'] === undefined ? options.checkHead === true : answer.extra['check_head'] === 'true'
      const head = answeredHead(answer.variables, payloadHead(answer.payload))
      // Review mode always reads the head and decides itself (postReview), check_head or not.
      if (mode === 'review') return postReview(api, app ?? ghReviews(runner), checked ? app ?? ghStatuses(runner) : NO_CHECK, answer, head, ctx)

      if (checkHead && head !== undefined) {
        const stale = await staleHead(api, head, answer, mode === 'sticky')
        if (stale !== undefined) return stale
      } else if (checkHead) {
        ctx.log.debug('check_head: the payload names no pull_request.head.sha; posting unchecked', { route: answer.route, delivery: answer.deliveryId })
      }
      const url = mode === 'sticky' ? await postSticky(api, answer, head) : await api.post(commentBody(answer.text))
      ctx.log.debug(mode === 'sticky' ? 'sticky comment written' : 'comment posted', { route: answer.route, delivery: answer.deliveryId, url })
      return { posted: true, url }
    },
  }

  /**
   * Review mode. The head reviewed is the pull request's head as GitHub reports it now, when the delivery starts,
   * not the one in the event that queued the job: the review (its `commit_id`), its marker, its footer and the
   * check name that head. Whatever order, duplication or loss the events of a burst had:
   *
   * - the head has this route's review already (its marker found): an answer for another head ends `skipped`,
   *   "already reviewed", with that review's URL; the same head's answer (a retry, a resend) is `posted` with it;
   * - the answer is for an older head (the head moved during the agent run, or the event came late): nothing is
   *   posted (its diff is not the head's) and the job ends `superseded`, naming both heads; the older head's check
   *   ends `skipped`, never `success`; a follow-up job of the route reviews the new head (see docs/reviews.md);
   * - otherwise the review is posted, and the check the agent's start marked (`in_progress`, or a `pending` status
   *   through gh; see {@link started}) completes: `failure` when a finding reaches `deliver_extra.fail_on`, else
   *   `success`.
   */
  async function postReview(api: CommentApi, reviews: ReviewApi, checks: CheckApi, answer: AgentAnswer, payloadHeadSha: string | undefined, ctx: DeliveryContext): Promise<DeliveryReceipt> {
    const head = (await api.head()).toLowerCase()
    const answered = (payloadHeadSha ?? head).toLowerCase()
    const name = reviewStatusName(answer.route)
    const login = await ownLogin(api)
    const existing = await findOwnReview(reviews, pullReviewMarker(answer.route, head), login)
    const fields = { route: answer.route, delivery: answer.deliveryId, head }
    const link = jobLink(answer.job)
    const scope = scopeOf(answer, ctx.notes, ctx.log)
    const base = payloadBase(answer.payload)
    if (answered !== head) {
      if (existing !== undefined) {
        // The older head's check, if this job marked it running, ends as that head's standing check says. Best
        // effort: the older head may be gone from GitHub (a force-push), and the answer is skipped either way.
        await checks.settleRunning(name, answered, supersededCheck(answered, head), { link, job: answer.job }).catch((err: unknown) => {
          if (DeliveryError.is(err) && err.retryable) throw err
          ctx.log.warn('the older head\'s check could not be completed', { ...fields, answered, reason: messageOf(err) })
        })
        return { posted: false, outcome: 'skipped', reason: `already reviewed: the pull request's head ${head.slice(0, 7)} has this route's review ${existing} (this answer was for ${answered.slice(0, 7)})` }
      }
      await checks.finishCheck(name, answered, supersededCheck(answered, head), { link, job: answer.job })
      // The push of the new head may never come (lost, or accepted elsewhere before this run): a follow-up job of
      // the route reviews it.
      return {
        posted: false,
        outcome: 'superseded',
        reason: `the answer is for ${answered.slice(0, 7)}, but the pull request's head moved to ${head.slice(0, 7)}, which this route has not reviewed: nothing was posted; ${head.slice(0, 7)} is reviewed next`,
        followUp: headFollowUp(answer, head),
      }
    }
    const failOn = answer.extra['fail_on'] as Severity | undefined
    if (existing !== undefined) {
      // A job that posted it and stopped before settling it (old threads, the note; once per head) settles it now.
      if (ctx.progress >= 1 || scope.notes !== undefined) await settleReview(reviews, scope, login, head, base, parseReview(answer.text))
      // This job posted it and stopped before its check was complete: it recorded the post (progress 1), or an
      // earlier try of it died or lost the answer between the post and its record (a later try: a crash between
      // the two is recovered as try 2). The answer is the one posted. Another job's answer for the head (a
      // redelivery, a resend: try 1, nothing recorded) leaves the check that job completed, and a check this job
      // marked running ends as that one says.
      if (ctx.progress >= 1 || ctx.attempt > 1) await checks.finishCheck(name, head, reviewedCheck(parseReview(answer.text), head, existing, failOn), { link, job: answer.job })
      else await checks.settleRunning(name, head, standingCheck(head, existing), { link, job: answer.job })
      ctx.log.debug('review already posted', { ...fields, url: existing })
      return { posted: true, url: existing }
    }
    const document = parseReview(answer.text)
    // The route's open threads: a finding one of them holds on its line is not posted twice.
    const openThreads = await ownOpenThreads(reviews, answer.route, login).catch((err: unknown) => {
      ctx.log.warn('the review threads could not be read; findings already open may be posted again', { ...fields, reason: messageOf(err) })
      return []
    })
    const repoPr = `${answer.extra['repo'] ?? ''}#${answer.extra['pr_number'] ?? ''}`
    const receipt = await createPullReview(reviews, () => filesAt(`${repoPr}@${head}`, reviews), {
      route: answer.route,
      head,
      requestChangesAt: answer.extra['request_changes_at'] as Severity | undefined,
      openThreads,
    }, document)
    // Recorded under the lease (saveProgress confirms it) before anything is settled for this head.
    await ctx.saveProgress(1)
    await settleReview(reviews, scope, login, head, base, document)
    // The run marked in progress when the agent started is completed (one is created when none was marked).
    await checks.finishCheck(name, head, reviewedCheck(document, head, receipt.url, failOn), { link, job: answer.job })
    ctx.log.debug('review posted', { ...fields, url: receipt.url })
    return receipt
  }

  /**
   * Review mode, when the agent is about to run: the head it reviews (`{review.head}`) gets its check marked
   * running (a check run `in_progress`, a `pending` status), which the delivery or the job's ending completes. Not
   * marked: a head the delivery will not conclude, or one this route has reviewed already (headToMark); a route
   * without the check.
   */
  async function started(job: StartedJob, ctx: PluginContext): Promise<void> {
    const mode = (job.extra['mode'] as CommentMode | undefined) ?? options.mode ?? 'new'
    if (mode !== 'review' || job.extra['check'] === 'false') return
    const head = headToMark(job.variables, payloadHead(job.payload))
    const parts = checksOf(job, ctx.signal)
    if (head === undefined || parts === undefined) return
    // A later try (a retry, or a try after a crash) keeps the run an earlier try marked.
    await parts.checks.startCheck(reviewStatusName(job.route), head, { link: jobLink(job.job), job: job.job, reuse: job.attempt > 1 })
    ctx.log.debug('check marked running', { route: job.route, delivery: job.deliveryId, head })
  }

  /** The check of a job's pull request, as the App or through gh; undefined when its extra names none. */
  function checksOf(job: StartedJob | EndedJob, signal: AbortSignal) {
    const repo = job.extra['repo'] ?? ''
    const prNumber = job.extra['pr_number'] ?? ''
    if ((repoProblem(repo) ?? prNumberProblem(prNumber)) !== undefined) return undefined
    const runner = { ghPath, repo, prNumber, timeoutMs, env: options.env, cwd: options.cwd, signal }
    const app = options.app === undefined
      ? undefined
      : appComments(options.app, { repo, prNumber, payload: job.payload, timeoutMs, signal, route: job.route, fromApp: options.appRoute?.(job.route) ?? true, permissions: CHECKED_REVIEW_PERMISSIONS })
    return { checks: app ?? ghStatuses(runner), reviews: app ?? ghReviews(runner), api: app ?? ghComments(runner) }
  }

  /**
   * A job of a review-mode route ended without a review (silent output, a policy filter, superseded in its group,
   * failed): the head it was about (the one its start marked, else the event's) gets its check completed saying so
   * (`neutral`, `cancelled`, `failure`; review-check.ts), never `success`: the run marked in progress is updated,
   * or a completed one written. A head this route has reviewed keeps its check (one this job marked running ends
   * as it says). An event that names no head, or a route without the check, writes nothing.
   */
  async function ended(job: EndedJob, ctx: PluginContext): Promise<void> {
    const mode = (job.extra['mode'] as CommentMode | undefined) ?? options.mode ?? 'new'
    if (mode !== 'review' || job.extra['check'] === 'false') return
    const head = (headToMark(job.variables, payloadHead(job.payload)) ?? payloadHead(job.payload))?.toLowerCase()
    const parts = checksOf(job, ctx.signal)
    if (head === undefined || parts === undefined) return
    const name = reviewStatusName(job.route)
    const result = endedCheck(job.outcome, head, job.reason)
    const link = { link: jobLink(job.job), job: job.job }
    if (await findOwnReview(parts.reviews, pullReviewMarker(job.route, head), await ownLogin(parts.api)) !== undefined) {
      await parts.checks.settleRunning(name, head, result, link)
      return
    }
    await parts.checks.finishCheck(name, head, result, link)
    ctx.log.debug('check completed for a job that ended without a review', { route: job.route, delivery: job.deliveryId, head, outcome: job.outcome })
  }

  async function postSticky(api: CommentApi, answer: AgentAnswer, head: string | undefined): Promise<string> {
    const body = stickyBody(answer.text, answer.route, { head, at: clock(), covers: answer.covers ?? 1 })
    return writeSticky(api, stickyMarker(answer.route), await ownLogin(api), body)
  }
}

/** The pull request's base commit as the event names it (`pull_request.base.sha`), or `''`. */
function payloadBase(payload: JsonObject | undefined): string {
  const pull = payload?.['pull_request']
  const base = typeof pull === 'object' && pull !== null && !Array.isArray(pull) ? pull['base'] : undefined
  const sha = typeof base === 'object' && base !== null && !Array.isArray(base) ? base['sha'] : undefined
  return typeof sha === 'string' ? sha.toLowerCase() : ''
}

/** A route with a `policy` section reads files and answers commands as the GitHub App: without one, it cannot. */
function policyProblem(route: Route, asApp: boolean): string | undefined {
  if (route.policy === undefined || asApp) return undefined
  return `route "${route.name}" has a policy section, which github_comment serves only as a GitHub App: configure platforms.github_app (docs/github-app.md), or remove the route's policy`
}

/** A route delivering here must say where: both keys, and literal values must already be valid. */
function routeProblem(route: Route): string | undefined {
  const missing = ['repo', 'pr_number'].filter((key) => (route.deliverExtra[key] ?? '').trim() === '')
  if (missing.length > 0) {
    return `route "${route.name}" delivers to github_comment, which needs deliver_extra.repo (e.g. "{repository.full_name}") and deliver_extra.pr_number (e.g. "{number}"); missing: ${missing.join(', ')}`
  }
  const repo = route.deliverExtra['repo'] ?? ''
  const prNumber = route.deliverExtra['pr_number'] ?? ''
  // A template is only known at delivery time; a literal can be checked now.
  const problem =
    (repo.includes('{') ? undefined : repoProblem(repo)) ??
    (prNumber.includes('{') ? undefined : prNumberProblem(prNumber)) ??
    overrideProblem(route.deliverExtra)
  return problem === undefined ? undefined : `route "${route.name}": ${problem}`
}
