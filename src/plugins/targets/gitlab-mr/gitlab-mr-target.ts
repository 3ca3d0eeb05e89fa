/**
 * `deliver: gitlab_mr`: an agent's review posted on a GitLab merge request (mr-review.ts), through GitLab's REST
 * API with a token of the `api` scope (gitlab-http.ts); and the merge request as the policy layer acts on it
 * (mr-pull-request.ts: a repository's policy file, commands in notes, notices).
 */
import { DeliveryError } from '../../../core/errors.js'
import type { Severity } from '../../../core/review/document.js'
import type { Clock, DeliveryTarget, Logger, PromptRequest, Route } from '../../../core/types.js'
import type { NoteStore } from '../../../core/note-types.js'
import { TARGET, gitlabHttp } from './gitlab-http.js'
import { gitlabUsers } from './gitlab-users.js'
import { mergeRequestApi } from './mr-api.js'
import { payloadHead } from './mr-payload.js'
import { mrPullRequest } from './mr-pull-request.js'
import { postMrReview } from './mr-review.js'
import { mrPromptVariables, rememberedIn, type MrReviewScope } from './mr-review-memory.js'
import { extraProblem, optionProblem, statusUrlProblem } from './validate.js'

/** The public GitLab's API root, the default of `platforms.gitlab.api_url`. */
export const GITLAB_API_URL = 'https://gitlab.com/api/v4'

/** Options of {@link gitlabMrDelivery} (`platforms.gitlab`). */
export interface GitlabMrOptions {
  /** A project or group access token with the `api` scope (`platforms.gitlab.token`). */
  readonly token: string
  /** The API root; {@link GITLAB_API_URL} by default, `https://gitlab.example.com/api/v4` for a self-managed GitLab. */
  readonly apiUrl?: string | undefined
  /** One request's time limit; 30,000 ms by default. */
  readonly timeoutMs?: number | undefined
  /** The cap on discussions per review; the core's default (30) when absent. */
  readonly maxInline?: number | undefined
  /** The time the note's footer shows; the machine's by default. */
  readonly clock?: Clock | undefined
  /** Replaces the global fetch (tests, proxies). */
  readonly fetch?: typeof globalThis.fetch | undefined
  /** A read's tries in all (default 3) and the first wait between them (default 500 ms); tests shorten them. */
  readonly http?: { readonly readTries?: number | undefined, readonly baseDelayMs?: number | undefined } | undefined
}

/**
 * The `gitlab_mr` delivery target. A route names the merge request in `deliver_extra` (`project`, `mr_iid`), and
 * may set `fail_on`, `status_url` and `status: "false"`.
 *
 * @example
 * ```ts
 * const target = gitlabMrDelivery({ token: process.env.GITLAB_TOKEN ?? '', apiUrl: 'https://gitlab.example.com/api/v4' })
 * // route: deliver: gitlab_mr, deliver_extra: { project: "{project.id}", mr_iid: "{object_attributes.iid}", fail_on: major }
 * ```
 */
export function gitlabMrDelivery(options: GitlabMrOptions): DeliveryTarget {
  if (options.token.trim() === '') throw new DeliveryError(TARGET, 'platforms.gitlab.token is empty: set it to a project or group access token with the api scope, e.g. token: ${GITLAB_TOKEN}')
  const http = gitlabHttp({ apiUrl: options.apiUrl ?? GITLAB_API_URL, token: options.token, timeoutMs: options.timeoutMs ?? 30_000, fetch: options.fetch, ...options.http })
  const clock = options.clock ?? Date.now
  const users = gitlabUsers(http)

  return {
    name: TARGET,
    publishes: true,
    checkRoute: routeProblem,
    // A repository's policy file, commands in notes, notices (docs/policy.md), with the same token.
    pullRequest: (where) => mrPullRequest(http, users, where),
    notesNeeded(route) {
      if (!rememberedIn(route.deliverExtra)) return undefined
      return 'its reviews remember the last reviewed head and its open findings, for incremental reviews; deliver_extra.incremental: "false" reviews in full each time and keeps none'
    },
    /**
     * The prompt's `{review.head}`, `{review.base}`, `{review.previous_head}`, `{review.mode}` (`full` |
     * `incremental`) and `{review.open_findings}`, as the GitHub target's review mode gives them (mr-review-memory.ts).
     */
    async promptVariables(request, ctx) {
      const problem = extraProblem(request.extra)
      if (problem !== undefined) throw new DeliveryError(TARGET, `${problem}; the agent was not run`)
      const api = mergeRequestApi(http, { project: request.extra['project']!, iid: request.extra['mr_iid']! }, ctx.signal)
      return mrPromptVariables(api, scopeOf(request, ctx.notes, ctx.log))
    },
    async deliver(answer, ctx) {
      const problem = extraProblem(answer.extra)
      if (problem !== undefined) throw new DeliveryError(TARGET, `${problem}; nothing was posted`)
      const api = mergeRequestApi(http, { project: answer.extra['project']!, iid: answer.extra['mr_iid']! }, ctx.signal)
      return postMrReview(api, await users.me(ctx.signal), answer, {
        route: answer.route,
        project: answer.extra['project']!,
        iid: answer.extra['mr_iid']!,
        answeredHead: payloadHead(answer.payload),
        failOn: answer.extra['fail_on'] as Severity | undefined,
        statusUrl: answer.extra['status_url'],
        status: answer.extra['status'] !== 'false',
        maxInline: options.maxInline,
        now: clock(),
        memory: scopeOf(answer, ctx.notes, ctx.log),
      }, ctx)
    },
  }
}

/** Where a delivery's merge request's reviews are remembered. */
function scopeOf(request: PromptRequest, notes: NoteStore | undefined, log: Logger): MrReviewScope {
  return { route: request.route, project: request.extra['project'] ?? '', iid: request.extra['mr_iid'] ?? '', incremental: rememberedIn(request.extra), notes, log }
}

/** A route's literal `deliver_extra` checked at startup (templates are checked when rendered). */
function routeProblem(route: Route): string | undefined {
  const extra = route.deliverExtra
  const missing = ['project', 'mr_iid'].filter((key) => extra[key] === undefined)
  if (missing.length > 0) {
    return `route "${route.name}": deliver: gitlab_mr needs deliver_extra.${missing.join(' and deliver_extra.')} (e.g. project: "{project.id}", mr_iid: "{object_attributes.iid}")`
  }
  const literal = Object.fromEntries(Object.entries(extra).filter(([, value]) => !value.includes('{')))
  const problem = (literal['project'] !== undefined || literal['mr_iid'] !== undefined ? literalProblem(literal) : undefined) ?? optionProblem(extra) ?? statusUrlProblem(extra['status_url'])
  return problem === undefined ? undefined : `route "${route.name}": ${problem}`
}

function literalProblem(literal: Record<string, string>): string | undefined {
  return extraProblem({ project: literal['project'] ?? '1', mr_iid: literal['mr_iid'] ?? '1' })
}
