/** What a delivery target is given and answers: the agent's answer, the delivery's context, the receipt. */
import type { StartupFinding } from './agent-types.js'
import type { PullRequestHost, PullRequestWhere } from './code-host-types.js'
import type { JsonObject, PluginContext } from './context-types.js'
import type { Route } from './route-types.js'
import type { NoteStore } from './note-types.js'

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
  /** The job's id, as `hookpilot jobs show` and the status page name it (a check's link to the job). */
  readonly job?: string | undefined
  /**
   * What this try's {@link DeliveryTarget.started} was given, when the agent ran in this try: the values the target
   * added to the prompt, e.g. `{review.head}`, the head the answer is about when the event names none (a comment's
   * command). Absent for an answer delivered again without a run (a resend, a try after a crash).
   */
  readonly variables?: Readonly<Record<string, string>> | undefined
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
      /**
       * With `superseded`: the event to run instead, because what the answer was about moved on (a pull
       * request's new head) and no event for the new state may ever come. The dispatcher queues it for the same
       * route, unless a newer event of the job's group was accepted already.
       */
      readonly followUp?: FollowUp | undefined
    }

/**
 * A job a target asks its route to run next ({@link DeliveryReceipt}). Its delivery id is `follow-up:<key>`, so
 * the same follow-up asked twice (a retry, another instance) is one job: the key names what it is about (the
 * pull request and its new head), not the try that asked.
 */
export interface FollowUp {
  /** What the job is about, stable across tries: e.g. `octo/app#7@<new head>`. */
  readonly key: string
  /** The payload the job runs with (the old event's, naming the new head). */
  readonly payload: JsonObject
  /** The event type the job shows; the superseded job's when absent. */
  readonly event?: string | undefined
}

/** A job as its route's target is told of it when it starts or ends ({@link StartedJob}, {@link EndedJob}). */
export interface TargetJob {
  readonly route: string
  readonly event: string
  readonly deliveryId: string
  /** The job's id. */
  readonly job: string
  /** The route's `deliver_extra`, rendered from the payload. */
  readonly extra: Readonly<Record<string, string>>
  /** The event's payload (sender-controlled text: read values from it, never run or log them). */
  readonly payload?: JsonObject | undefined
}

/** How a job ended without its answer delivered, as its route's target is told ({@link DeliveryTarget.ended}). */
export interface EndedJob extends TargetJob {
  /**
   * `skipped`: nothing to deliver (a silent output); `superseded`: a newer event of its concurrency group came
   * before its answer was posted; `failed`: the agent run or the delivery failed for good.
   */
  readonly outcome: 'skipped' | 'superseded' | 'failed'
  readonly reason: string
  /**
   * What this try's {@link DeliveryTarget.started} was given, when the try told it (the agent ran, or was about
   * to): the values the target added to the prompt, e.g. `{review.head}`, so the ending names the head the start
   * marked. Absent when the try did not reach the agent (a policy skip, a delivery tried again).
   */
  readonly variables?: Readonly<Record<string, string>> | undefined
}

/**
 * A job whose agent is about to run, as its route's target is told ({@link DeliveryTarget.started}): the job, and
 * the values the target added to its prompt ({@link DeliveryTarget.promptVariables}), which name what the run is
 * about (`{review.head}`: the head reviewed).
 */
export interface StartedJob extends TargetJob {
  /** The job's try: 1 on its first, more on a retry or a try after a crash (an earlier try may have started it). */
  readonly attempt: number
  /** What {@link DeliveryTarget.promptVariables} answered for this try; empty for a target without it. */
  readonly variables: Readonly<Record<string, string>>
}

/**
 * What a target is given before the agent runs, to add values to the route's prompt: the job's route, event and
 * payload, and the route's `deliver_extra` rendered from it, as {@link AgentAnswer} will carry them.
 */
export type PromptRequest = Omit<AgentAnswer, 'text' | 'covers'>

/** The context of {@link DeliveryTarget.promptVariables}: the run's signal and log, and the state store's notes. */
export interface PromptContext extends PluginContext {
  /**
   * The state backend's notes (shared by every instance on the store, kept across restarts), for what a target
   * keeps per pull request; undefined on a backend that keeps none.
   */
  readonly notes?: NoteStore | undefined
}

/** What a delivery receives besides the answer. */
export interface DeliveryContext extends PluginContext {
  /**
   * The state backend's notes, for what a target keeps per route and pull request between deliveries (the last
   * reviewed head and its open findings); undefined on a backend that keeps none (see
   * {@link DeliveryTarget.notesNeeded}). Write them after the part they describe was posted: the delivery holds
   * the job's lease, and {@link DeliveryContext.saveProgress} confirms it.
   */
  readonly notes?: NoteStore | undefined
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
  /**
   * Why `route`'s deliveries keep notes in the state store, and how to turn that off (`its reviews remember ...;
   * set deliver_extra.incremental: "false" to review in full each time`), or undefined when they keep none. The
   * gateway refuses to start on a backend that keeps no notes with such a route, saying this.
   */
  notesNeeded?(route: Route): string | undefined
  /**
   * Values the route's prompt may name besides the payload's fields (`{review.head}`), asked right before the agent
   * runs. A failure fails the try like a failed agent run: a `DeliveryError` marked `retryable` is tried again later.
   */
  promptVariables?(request: PromptRequest, ctx: PromptContext): Promise<Readonly<Record<string, string>>>
  /**
   * Told once per try, right before the agent runs (after {@link promptVariables}), under the job's lease: a
   * target that marks what is being reviewed (a check run `in_progress`, a `pending` or `running` status) marks it
   * here, and completes it in {@link deliver} or {@link ended}. It runs beside the agent, so it never delays the
   * run; the answer is delivered (or the ending told) only once it has returned. What it throws is logged and
   * changes nothing: a mark that cannot be written must never fail or hold up a review.
   */
  started?(job: StartedJob, ctx: PluginContext): Promise<void>
  deliver(answer: AgentAnswer, ctx: DeliveryContext): Promise<void | DeliveryReceipt>
  /**
   * Told when a job of a route delivering here ends without a delivery that decided its ending itself: skipped
   * (a silent output), superseded by a newer event of its group, or failed (the run, or a delivery that threw).
   * A target that marks a head as pending or reviewed (a check run) completes it here, so none stays open or
   * reads as reviewed. Called under the job's lease, before the ending is stored; what it throws is logged and
   * changes nothing. Not called for a receipt the target returned (it knew then).
   */
  ended?(job: EndedJob, ctx: PluginContext): Promise<void>
  /**
   * What answer the agent should give for `route`: `review` for a review document (src/core/review/schema.ts),
   * which a runner that can ask for structured output (the `openai` runner) then asks the model for. Undefined
   * or `text`: free text.
   */
  answerFormat?(route: Route): AnswerFormat | undefined
  /**
   * The pull request a job is about, for a target that posts to a code host: the gateway reads a repository's
   * policy file, answers pull-request commands and posts notices through it (docs/policy.md). Undefined when the
   * job names no pull request this target can reach.
   */
  pullRequest?(where: PullRequestWhere): PullRequestHost | undefined
}

/** What an agent is asked to answer: free text, or a review document (see {@link DeliveryTarget.answerFormat}). */
export type AnswerFormat = 'text' | 'review'
