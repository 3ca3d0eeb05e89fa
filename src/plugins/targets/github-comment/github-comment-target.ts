import { DeliveryError } from '../../../core/errors.js'
import type { AgentAnswer, Clock, DeliveryReceipt, DeliveryTarget, Route } from '../../../core/types.js'
import { commentBody, stickyBody, reviewMarker } from './comment-body.js'
import { ghOutput, type GhRunner } from './gh.js'
import { payloadHead, staleHead } from './head-check.js'
import { createComment, editComment, findOwnComment, ghLogin } from './sticky-comment.js'
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
  /** The account gh posts as, for sticky mode; asked of `gh api user` once when absent (a GitHub App must set it). */
  readonly login?: string | undefined
  /** The time the footer shows; the machine's by default. */
  readonly clock?: Clock | undefined
}

/**
 * The `github_comment` delivery target, through gh (argument arrays, never a shell; text on stdin). `repo` and
 * `pr_number` come from the route's `deliver_extra` and are checked before gh runs. New mode runs
 * `gh pr comment <pr_number> --repo <owner/repo> --body-file -`; sticky mode finds the route's own comment with
 * `gh api` and edits it, or creates it when there is none. A longer answer than GitHub takes is cut, with a note.
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
  const ownLogin = (gh: GhRunner) => (login ??= ghLogin(gh).catch((error: unknown) => {
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
      if (problem !== undefined) throw new DeliveryError('github_comment', `${problem}; gh was not run`)
      const gh: GhRunner = { ghPath, repo, prNumber, timeoutMs, env: options.env, cwd: options.cwd, signal: ctx.signal }
      const mode = (answer.extra['mode'] as CommentMode | undefined) ?? options.mode ?? 'new'
      const checkHead = answer.extra['check_head'] === undefined ? options.checkHead === true : answer.extra['check_head'] === 'true'
      const head = payloadHead(answer.payload)

      if (checkHead && head !== undefined) {
        const stale = await staleHead(gh, head)
        if (stale !== undefined) return stale
      } else if (checkHead) {
        ctx.log.debug('check_head: the payload names no pull_request.head.sha; posting unchecked', { route: answer.route, delivery: answer.deliveryId })
      }
      const url = mode === 'sticky' ? await postSticky(gh, answer, head, await ownLogin(gh)) : await postNew(gh, answer)
      ctx.log.debug(mode === 'sticky' ? 'sticky comment written' : 'comment posted', { route: answer.route, delivery: answer.deliveryId, url })
      return { posted: true, url }
    },
  }

  async function postSticky(gh: GhRunner, answer: AgentAnswer, head: string | undefined, account: string): Promise<string> {
    const body = stickyBody(answer.text, answer.route, { head, at: clock(), covers: answer.covers ?? 1 })
    const found = await findOwnComment(gh, reviewMarker(answer.route), account)
    const edited = found === undefined ? undefined : await editComment(gh, found.id, body)
    return edited ?? (await createComment(gh, body))
  }
}

/** `gh pr comment`: a new comment; gh prints its URL, the one thing worth keeping from its output. */
async function postNew(gh: GhRunner, answer: AgentAnswer): Promise<string> {
  const args = ['pr', 'comment', gh.prNumber, '--repo', gh.repo, '--body-file', '-']
  return (await ghOutput(gh, args, { repeatable: false }, commentBody(answer.text))).trim().slice(0, 200)
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
