/**
 * `deliver: gitlab_mr`: an agent's review posted on a GitLab merge request (mr-review.ts), through GitLab's REST
 * API with a token of the `api` scope (gitlab-http.ts); and the merge request as the policy layer acts on it
 * (mr-pull-request.ts: a repository's policy file, commands in notes, notices).
 */
import { DeliveryError } from '../../../core/errors.js'
import type { Severity } from '../../../core/review/document.js'
import type { Clock, DeliveryTarget, EndedJob, Logger, PluginContext, PromptRequest, Route, StartedJob } from '../../../core/types.js'
import type { NoteStore } from '../../../core/note-types.js'
import { TARGET, gitlabHttp } from './gitlab-http.js'
import { gitlabUsers } from './gitlab-users.js'
import { mergeRequestApi, type MergeRequestApi } from './mr-api.js'
import { payloadHead } from './mr-payload.js'
import { mrPullRequest } from './mr-pull-request.js'
import { postMrReview } from './mr-review.js'
import { mrPromptVariables, rememberedIn, type MrReviewScope } from './mr-review-memory.js'
import { extraProblem, optionProblem, statusUrlProblem } from './validate.js'
import { settleRunning, type StatusPlace } from './mr-status.js'
import { reviewStatusName } from '../../shared/review-status-name.js'
import { answeredHead, headToMark } from '../../shared/review-start.js'
import { publicEnding } from '../../../core/policy/public-ending.js'

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
  // Each merge request's source branch, as read right before its runs (a merge request keeps its source branch):
  // GitLab keys a running status by it, so the start writes under the branch the delivery writes under.
  const branches = new Map<string, string>()
  const branchKey = (extra: Readonly<Record<string, string>>) => `${extra['project'] ?? ''}!${extra['mr_iid'] ?? ''}`

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
      const remembering: MergeRequestApi = {
        ...api,
        async mergeRequest() {
          const mr = await api.mergeRequest()
          branches.delete(branchKey(request.extra))
          branches.set(branchKey(request.extra), mr.sourceBranch)
          if (branches.size > BRANCHES_KEPT) branches.delete(branches.keys().next().value!)
          return mr
        },
      }
      return mrPromptVariables(remembering, scopeOf(request, ctx.notes, ctx.log))
    },
    async deliver(answer, ctx) {
      const problem = extraProblem(answer.extra)
      if (problem !== undefined) throw new DeliveryError(TARGET, `${problem}; nothing was posted`)
      const api = mergeRequestApi(http, { project: answer.extra['project']!, iid: answer.extra['mr_iid']! }, ctx.signal)
      return postMrReview(api, await users.me(ctx.signal), answer, {
        route: answer.route,
        project: answer.extra['project']!,
        iid: answer.extra['mr_iid']!,
        answeredHead: answeredHead(answer.variables, payloadHead(answer.payload)),
        failOn: answer.extra['fail_on'] as Severity | undefined,
        statusUrl: answer.extra['status_url'],
        status: answer.extra['status'] !== 'false',
        maxInline: options.maxInline,
        now: clock(),
        memory: scopeOf(answer, ctx.notes, ctx.log),
      }, ctx)
    },
    started,
    ended,
  }

  /** The merge request of a job's route, and where its status is written; undefined for a route without one. */
  async function statusOf(job: StartedJob | EndedJob, signal: AbortSignal): Promise<{ api: MergeRequestApi, place: StatusPlace } | undefined> {
    if (job.extra['status'] === 'false' || extraProblem(job.extra) !== undefined) return undefined
    const api = mergeRequestApi(http, { project: job.extra['project']!, iid: job.extra['mr_iid']! }, signal)
    // The delivery writes under the merge request's source branch: the same ref, or GitLab keeps two statuses.
    const ref = branches.get(branchKey(job.extra)) ?? (await api.mergeRequest()).sourceBranch
    return { api, place: { name: reviewStatusName(job.route), ref, targetUrl: job.extra['status_url'] } }
  }

  /**
   * When the agent is about to run: the head it reviews (`{review.head}`) gets the status `running`, which the
   * delivery moves to `success`/`failed` (or `canceled`) and the job's ending completes. Not marked: a head the
   * delivery will not conclude, or one this route has reviewed already (headToMark); a route with `status: "false"`.
   * A later try finds it running: GitLab refuses `running` again, which is taken as done.
   */
  async function started(job: StartedJob, ctx: PluginContext): Promise<void> {
    const head = headToMark(job.variables, payloadHead(job.payload))
    const where = head === undefined ? undefined : await statusOf(job, ctx.signal)
    if (head === undefined || where === undefined) return
    await where.api.setStatus(head, { state: 'running', description: 'Reviewing this head', ...where.place })
    ctx.log.debug('status set to running', { route: job.route, delivery: job.deliveryId, head })
  }

  /**
   * A job that ended without a review (a silent output, a policy's filter, superseded, failed): a status its start
   * left `running` ends as the head's last finished status says (the review that stands on it), else `canceled`
   * (skipped, superseded) or `failed`; a head without a status gets `failed` when the review failed for good, and
   * nothing otherwise. A finished status is left as it is. Never `success`.
   */
  async function ended(job: EndedJob, ctx: PluginContext): Promise<void> {
    const head = headToMark(job.variables, payloadHead(job.payload)) ?? payloadHead(job.payload)
    const where = head === undefined ? undefined : await statusOf(job, ctx.signal)
    if (head === undefined || where === undefined) return
    // A status is public to whoever reads the merge request: the job's own reason is the operator's.
    const { said } = publicEnding(job.outcome, job.reason)
    const why = said.length > 200 ? `${said.slice(0, 200)}…` : said
    const end = job.outcome === 'failed' ? { state: 'failed' as const, description: `Not reviewed: ${why}` } : { state: 'canceled' as const, description: `Not reviewed: ${why}` }
    const found = await settleRunning(where.api, head, where.place, end)
    if (found === 'none' && job.outcome === 'failed') await where.api.setStatus(head, { ...end, ...where.place })
    ctx.log.debug('status completed for a job that ended without a review', { route: job.route, delivery: job.deliveryId, head, outcome: job.outcome, found })
  }
}

/** Merge requests whose source branch is kept (the oldest go first). */
const BRANCHES_KEPT = 1_000

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
