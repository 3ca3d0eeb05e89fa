/**
 * The small interfaces the gateway is composed of. Each has one or two methods, takes a context with a `signal`
 * and a `log`, and returns a value (expected outcomes are values, not exceptions). Built-in plugins implement
 * them; so can yours, as plain objects.
 */
import type { JsonObject, PluginContext } from './context-types.js'
import type { OverLimit, Route } from './route-types.js'

export type { Clock, JsonObject, JsonValue, LogFields, Logger, PluginContext } from './context-types.js'
export type { OverLimit, Route, RouteCommands, RouteConcurrency, RoutePolicy } from './route-types.js'
export type {
  AgentContext, AgentEnvironment, AgentEnvironmentSource, AgentInput, AgentJob, AgentResult, AgentRunner, AgentSandbox, AgentUser,
  ModelLimits, PromptParts, StartupFinding,
} from './agent-types.js'
export type { AgentAnswer, AnswerFormat, DeliveryContext, DeliveryReceipt, DeliveryTarget, EndedJob, FollowUp, PromptContext, PromptRequest, StartedJob, TargetJob } from './delivery-types.js'
export type { Note, NotePutOptions, NoteStore } from './note-types.js'
export type { CommentRef, HostFile, PullFacts, PullRequestHost, PullRequestWhere, Reaction, RepoPermission } from './code-host-types.js'
export type { RunUsage, UsageBound } from './usage.js'

/** A request as the pipeline sees it: transport-free, headers lower-cased, the body as raw bytes. */
export interface RawRequest {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
  /**
   * The local address of the socket the request arrived on (`127.0.0.1`, `10.0.0.5`); undefined for a request
   * that came through no socket (`gateway.handle()`). Decides whether `INSECURE_NO_AUTH` may pass.
   */
  readonly localAddress?: string | undefined
  /** The client's address as `trust_proxy` decides it; logged with the request, never trusted for anything else. */
  readonly clientAddress?: string | undefined
}

/** Result of checking a request's credentials. */
export type VerifyResult = { readonly ok: true; readonly scheme: string } | { readonly ok: false; readonly reason: string }

/**
 * Checks a request's credentials against a route's secrets (several while a secret is being rotated).
 * Verifiers are tried in order; the first whose `header` is present in the request decides.
 */
export interface Verifier {
  readonly name: string
  /** Lower-case name of the request header that carries this scheme's credential. */
  readonly header: string
  verify(req: RawRequest, secrets: readonly string[]): VerifyResult | Promise<VerifyResult>
}


/**
 * A sender of webhooks (GitHub, GitLab, a generic HMAC signer): how its requests are verified, and which of its
 * headers carry the delivery id and the event type. Sources are tried in order; the first whose credential
 * `header` is present decides.
 */
export interface Source extends Verifier {
  /** The delivery id in the sender's headers, stable across its own retries; undefined when it sends none. */
  deliveryId?(headers: Readonly<Record<string, string>>): string | undefined
  /** The event type in the sender's headers; undefined when it sends none (the payload is asked next). */
  eventType?(headers: Readonly<Record<string, string>>): string | undefined
  /**
   * Whether this source decides a request whose credential `header` is absent (GitLab's signed requests may
   * carry no `X-Gitlab-Token`); by default a source decides only the requests that carry its `header`.
   */
  claims?(headers: Readonly<Record<string, string>>): boolean
  /**
   * Where the event comes from, read from a verified request: its page (`link`: GitHub's pull request or issue,
   * GitLab's merge request) and the GitHub webhook that delivered it (`hook`). The gateway keeps only what passes
   * its checks (an https link without credentials; a hook of GitHub's shape) on the job's record.
   */
  origin?(headers: Readonly<Record<string, string>>, payload: JsonObject): JobOrigin | undefined
  /**
   * What a route that does not set `over_limit` does with this sender's verified requests over its limit:
   * `defer` for a sender that disables a hook answered 4xx (GitLab), else `reject` (the default).
   */
  readonly overLimit?: OverLimit | undefined
}

/** Where an accepted event comes from, as a source reads it (each part optional; see {@link Source.origin}). */
export interface JobOrigin {
  /** The page of the event: a pull request's, a merge request's, a market's. */
  readonly link?: string | undefined
  /** The GitHub webhook that delivered it: `repos/OWNER/NAME/hooks/ID`, `orgs/OWNER/hooks/ID` or `app/hook`. */
  readonly hook?: string | undefined
}

/** An authenticated, parsed webhook. */
export interface WebhookEvent {
  readonly route: string
  /** The source's event header (`X-GitHub-Event`, `X-Gitlab-Event`), else `payload.event_type`, else `payload.type`, else `unknown`. */
  readonly type: string
  readonly deliveryId: string
  readonly payload: JsonObject
  readonly receivedAt: number
}

/** Decides whether an event goes on to the agent. Any filter answering false makes the event `ignored`. */
export interface EventFilter {
  readonly name: string
  accepts(event: WebhookEvent, ctx: PluginContext & { readonly route: Route }): boolean | Promise<boolean>
}

/** Result of a rate-limit check. */
export type RateDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number }

/** A hit booked at a later moment, when the limit allows it: counted from then on. */
export interface RateBooking {
  /** Milliseconds from now until the booked moment; 0 when the hit is counted at once. */
  readonly waitMs: number
  /** Gives the booking back (its job was not stored); a booking given back never counted. */
  release(): void | Promise<void>
}

/** Counts accepted requests per key (one key per route) over a rolling window. */
export interface RateLimiter {
  /** Counts a hit now if the limit allows one, else says how long until it does. */
  hit(key: string, limit: number): RateDecision | Promise<RateDecision>
  /**
   * Books the earliest moment, at or after now, at which the limit allows one more hit, counting it then: a
   * route's deferred jobs run at these moments, so they start at most `limit` per window. A limiter without it
   * makes every route `reject`.
   */
  book?(key: string, limit: number): RateBooking | Promise<RateBooking>
}
