import { DeliveryError } from '../../../core/errors.js'
import type { AgentAnswer, Clock, DeliveryReceipt, DeliveryTarget, Route } from '../../../core/types.js'
import type { GithubApp } from '../../github-app/app.js'
import { appComments } from './app-comments.js'
import type { CommentApi } from './comment-api.js'
import { commentBody, stickyBody, reviewMarker } from './comment-body.js'
import { ghComments } from './gh-comments.js'
import { payloadHead, staleHead } from './head-check.js'
import { writeSticky } from './sticky-comment.js'
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
   * place, ending with a footer naming the head it reviewed. A route's `deliver_extra.mode` overrides it.
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

  return {
    name: 'github_comment',
    publishes: true,
    checkRoute: routeProblem,
    async deliver(answer, ctx): Promise<DeliveryReceipt> {
      const repo = answer.extra['repo'] ?? ''
      const prNumber = answer.extra['pr_number'] ?? ''
      const problem = repoProblem(repo) ?? prNumberProblem(prNumber) ?? overrideProblem(answer.extra)
      if (problem !== undefined) throw new DeliveryError('github_comment', `${problem}; ${options.app === undefined ? 'gh was not run' : 'nothing was posted'}`)
      const api = options.app === undefined
        ? ghComments({ ghPath, repo, prNumber, timeoutMs, env: options.env, cwd: options.cwd, signal: ctx.signal })
        : appComments(options.app, { repo, prNumber, payload: answer.payload, timeoutMs, signal: ctx.signal, route: answer.route, fromApp: options.appRoute?.(answer.route) ?? true })
      const mode = (answer.extra['mode'] as CommentMode | undefined) ?? options.mode ?? 'new'
      const checkHead = answer.extra['check_head'] === undefined ? options.checkHead === true : answer.extra['check_head'] === 'true'
      const head = payloadHead(answer.payload)

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

  async function postSticky(api: CommentApi, answer: AgentAnswer, head: string | undefined): Promise<string> {
    const body = stickyBody(answer.text, answer.route, { head, at: clock(), covers: answer.covers ?? 1 })
    return writeSticky(api, reviewMarker(answer.route), await ownLogin(api), body)
  }
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
