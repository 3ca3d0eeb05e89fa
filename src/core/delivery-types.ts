/** What a delivery target is given and answers: the agent's answer, the delivery's context, the receipt. */
import type { StartupFinding } from './agent-types.js'
import type { PullRequestHost, PullRequestWhere } from './code-host-types.js'
import type { JsonObject, PluginContext } from './context-types.js'
import type { Route } from './route-types.js'

/** The agent's answer on its way to a target. */
export interface AgentAnswer {
  readonly route: string
  readonly event: string
  readonly deliveryId: string
  readonly text: string
  /** The route's `deliver_extra`, rendered from the payload. */
  readonly extra: Readonly<Record<string, string>>
  /**
   * The event's payload, for a target that needs a field of it (the head a review is of). Sender-controlled
   * text: read values from it, never run or log them.
   */
  readonly payload?: JsonObject | undefined
  /**
   * How many accepted events this answer covers: 1, plus the jobs of its concurrency group that it superseded
   * before they ran (the pushes a review covered). Absent for a route without `concurrency`.
   */
  readonly covers?: number | undefined
}

/**
 * What a delivery reports when it returns: posted (with where, when the target knows), or deliberately not
 * posted, and why. A target that returns nothing posted. A delivery that posts nothing is never counted as
 * delivered: the job ends `skipped` or `superseded` with the reason.
 */
export type DeliveryReceipt =
  | { readonly posted: true; readonly url?: string | undefined }
  | {
      readonly posted: false
      /** `superseded`: the answer is stale (the pull request's head moved); `skipped`: nothing to post. */
      readonly outcome: 'skipped' | 'superseded'
      readonly reason: string
    }

/** What a delivery receives besides the answer. */
export interface DeliveryContext extends PluginContext {
  /** 1 on the first try; the queue retries a {@link DeliveryError} marked `retryable`, at a later time. */
  readonly attempt: number
  /**
   * How many parts of this answer earlier tries posted (0 on a first try). A target that posts an answer in
   * parts starts after them, so a retry, or a job resumed after a crash, never posts a part twice.
   */
  readonly progress: number
  /** Records that the first `parts` parts are posted; resolves once it is stored. */
  saveProgress(parts: number): Promise<void>
}

/**
 * Sends an answer somewhere. Throw a `DeliveryError` to fail; mark it `retryable` for passing failures and the
 * dispatcher retries with backoff (honouring `retryAfterMs`).
 */
export interface DeliveryTarget {
  readonly name: string
  /** True for a target that posts where people read it (a pull request, a chat), unlike the log. */
  readonly publishes?: boolean | undefined
  /**
   * Other names routes may use for this target: the platform-neutral ones (`codehost_comment`, `messenger_1`..`4`),
   * so a configuration that names targets by role still works.
   */
  readonly aliases?: readonly string[]
  /** Startup check of a route that uses this target; return a message to refuse the configuration. */
  checkRoute?(route: Route): string | undefined
  /**
   * Startup check of what the target needs outside the gateway (`gh` on PATH and logged in), run once when at
   * least one route delivers here, with those routes.
   */
  preflight?(routes: readonly Route[]): Promise<readonly StartupFinding[]>
  deliver(answer: AgentAnswer, ctx: DeliveryContext): Promise<void | DeliveryReceipt>
  /**
   * The pull request a job is about, for a target that posts to a code host: the gateway reads a repository's
   * policy file, answers pull-request commands and posts notices through it (docs/policy.md). Undefined when the
   * job names no pull request this target can reach.
   */
  pullRequest?(where: PullRequestWhere): PullRequestHost | undefined
}
