import { DeliveryError } from '../../../core/errors.js'
import type { AgentAnswer, Clock, DeliveryContext, DeliveryReceipt, DeliveryTarget, Route } from '../../../core/types.js'
import type { GithubApp } from '../../github-app/app.js'
import { appComments } from './app-comments.js'
import type { CommentApi } from './comment-api.js'
import { commentBody, stickyBody, reviewMarker } from './comment-body.js'
import { ghComments } from './gh-comments.js'
import { payloadHead, staleHead } from './head-check.js'
import { writeSticky } from './sticky-comment.js'
import { ghReviews } from './gh-reviews.js'
import { createPullReview, findOwnReview, parseReview, pullReviewMarker, readChangedFiles } from './pull-review.js'
import type { ReviewApi } from './review-api.js'
import type { ChangedFile } from '../../../core/review/diff-lines.js'
import type { Severity } from '../../../core/review/document.js'
import type { AppPermissions } from '../../github-app/permissions.js'
import { checkName, NO_CHECK, reviewedCheck, supersededCheck, type CheckApi } from './review-check.js'
import { ghStatuses } from './gh-statuses.js'
import { appPullRequest } from './app-pull-request.js'

/** Review mode's App token: reviews are pull requests' writes (the summary comment stays an issue's)... */
const REVIEW_PERMISSIONS: AppPermissions = { issues: 'write', pull_requests: 'write' }
/** ...and its check a check run's, unless the route turns the check off (`deliver_extra.check: false`). */
const CHECKED_REVIEW_PERMISSIONS: AppPermissions = { ...REVIEW_PERMISSIONS, checks: 'write' }

/** Heads whose changed files are kept: a review reads a head's diff once, a retry of it reads none. */
const FILES_CACHE_HEADS = 64
import { overrideProblem, prNumberProblem, repoProblem, type CommentMode } from './validate.js'

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

  return {
    name: 'github_comment',
    publishes: true,
    checkRoute: (route) => routeProblem(route) ?? policyProblem(route, options.app !== undefined),
    // A repository's policy file, commands and notices: as the App only (gh has no installation to scope them to).
    pullRequest: (where) =>
      options.app === undefined ? undefined : appPullRequest(options.app, where, { timeoutMs, fromApp: options.appRoute?.(where.route) ?? true }),
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
      const head = payloadHead(answer.payload)
      // Review mode always reads the head and decides itself (postReview), check_head or not.
      if (mode === 'review') return postReview(api, app ?? ghReviews(runner), checked ? app ?? ghStatuses(runner) : NO_CHECK, answer, head, ctx)

      if (checkHead && head !== undefined) {
        const stale = await staleHead(api, head)
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
   *   ends `skipped`, never `success`. A target cannot ask its group for a follow-up job, so the new head is
   *   reviewed by the next event for it (see docs/reviews.md);
   * - otherwise the check starts (`in_progress`, or a `pending` status through gh), the review is posted, and the
   *   check completes: `failure` when a finding reaches `deliver_extra.fail_on`, else `success`.
   */
  async function postReview(api: CommentApi, reviews: ReviewApi, checks: CheckApi, answer: AgentAnswer, payloadHeadSha: string | undefined, ctx: DeliveryContext): Promise<DeliveryReceipt> {
    const head = (await api.head()).toLowerCase()
    const answered = (payloadHeadSha ?? head).toLowerCase()
    const name = checkName(answer.route)
    const existing = await findOwnReview(reviews, pullReviewMarker(answer.route, head), await ownLogin(api))
    const fields = { route: answer.route, delivery: answer.deliveryId, head }
    if (answered !== head) {
      if (existing !== undefined) return { posted: false, outcome: 'skipped', reason: `already reviewed: the pull request's head ${head.slice(0, 7)} has this route's review ${existing} (this answer was for ${answered.slice(0, 7)})` }
      await checks.finishCheck(await checks.startCheck(name, answered), name, answered, supersededCheck(answered, head))
      return { posted: false, outcome: 'superseded', reason: `the answer is for ${answered.slice(0, 7)}, but the pull request's head moved to ${head.slice(0, 7)}, which this route has not reviewed: nothing was posted; the next event for ${head.slice(0, 7)} reviews it` }
    }
    const failOn = answer.extra['fail_on'] as Severity | undefined
    if (existing !== undefined) {
      // This job posted it and stopped before its check was complete (progress 1): the answer is the one posted.
      if (ctx.progress >= 1) await checks.finishCheck(await checks.startCheck(name, head), name, head, reviewedCheck(parseReview(answer.text), head, existing, failOn))
      ctx.log.debug('review already posted', { ...fields, url: existing })
      return { posted: true, url: existing }
    }
    const document = parseReview(answer.text)
    const check = await checks.startCheck(name, head)
    const repoPr = `${answer.extra['repo'] ?? ''}#${answer.extra['pr_number'] ?? ''}`
    const receipt = await createPullReview(reviews, () => filesAt(`${repoPr}@${head}`, reviews), {
      route: answer.route,
      head,
      requestChangesAt: answer.extra['request_changes_at'] as Severity | undefined,
    }, document)
    await ctx.saveProgress(1)
    await checks.finishCheck(check, name, head, reviewedCheck(document, head, receipt.url, failOn))
    ctx.log.debug('review posted', { ...fields, url: receipt.url })
    return receipt
  }

  async function postSticky(api: CommentApi, answer: AgentAnswer, head: string | undefined): Promise<string> {
    const body = stickyBody(answer.text, answer.route, { head, at: clock(), covers: answer.covers ?? 1 })
    return writeSticky(api, reviewMarker(answer.route), await ownLogin(api), body)
  }
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
