/**
 * The small interfaces the gateway is composed of. Each has one or two methods, takes a context with a `signal`
 * and a `log`, and returns a value (expected outcomes are values, not exceptions). Built-in plugins implement
 * them; so can yours, as plain objects.
 */

/** A JSON object as parsed from a webhook body. */
export type JsonObject = { [key: string]: JsonValue }
/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject

/** Extra data attached to a log line. Never put a secret or an unauthenticated body here. */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>

/** One line per event. The default writes `time LEVEL message key=value ...` to stdout. */
export interface Logger {
  debug(message: string, fields?: LogFields): void
  info(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  error(message: string, fields?: LogFields): void
}

/** Milliseconds since the epoch; injectable so tests never sleep. */
export type Clock = () => number

/** What every plugin method receives besides its input. */
export interface PluginContext {
  readonly signal: AbortSignal
  readonly log: Logger
}

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

/** What a route does with a verified request over its rate limit: refuse it (429), or store it for later (202). */
export type OverLimit = 'reject' | 'defer'

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

/** A route, resolved from config.yaml or from a dynamic subscription. */
export interface Route {
  readonly name: string
  /** Any of these verifies a request; `INSECURE_NO_AUTH` skips verification (loopback only). */
  readonly secrets: readonly string[]
  /** Accepted event types; empty accepts every event. */
  readonly events: readonly string[]
  /**
   * Accepted actions (`opened`, `synchronize`; GitLab's `open`, `update`), read from the payload's `action`,
   * else `object_attributes.action`; empty accepts every action. Others are answered `ignored` and run nothing.
   */
  readonly actions: readonly string[]
  /** The prompt template; undefined sends the whole payload. */
  readonly prompt: string | undefined
  readonly skills: readonly string[]
  /** Name (or alias) of the delivery target. */
  readonly deliver: string
  /** Templates rendered from the payload at delivery time (`repo`, `pr_number`, `chat_id`, ...). */
  readonly deliverExtra: Readonly<Record<string, string>>
  /** Agent outputs that mean "say nothing" (compared trimmed); empty delivers every answer. */
  readonly silentOutputs: readonly string[]
  /** Requests per rolling minute. */
  readonly rateLimit: number
  /**
   * What a verified request over `rateLimit` gets (`over_limit`): `reject` answers 429, `defer` stores its job to
   * run when the limit allows and answers 202 `deferred`. Undefined: the verifying source's {@link Source.overLimit}.
   */
  readonly overLimit?: OverLimit | undefined
  /** The route's concurrency group (`concurrency`): one running job per key, the newest superseding the rest. */
  readonly concurrency?: RouteConcurrency | undefined
  readonly source: 'static' | 'dynamic'
  readonly description: string | undefined
}

/** A route's `concurrency` section (docs/reviews.md). */
export interface RouteConcurrency {
  /** A template over the payload naming the group, e.g. `{repository.full_name}#{pull_request.number}`. */
  readonly key: string
  /** A job runs only once no newer event of its key came for this long (0: at once). */
  readonly debounceMs: number
  /** ...but never waits longer than this after the first event of a burst. */
  readonly maxWaitMs: number
  /** A newer event of the key stops the run in progress (else it finishes, and its stale answer is dropped). */
  readonly cancelInProgress: boolean
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

/**
 * The prompt split by who wrote it. `instructions` is the operator's text (the skill and the route's template,
 * its `{placeholders}` unfilled); `fields` holds what each placeholder stands for, rendered from the payload:
 * written by whoever opened the pull request, so untrusted.
 */
export interface PromptParts {
  readonly instructions: string
  readonly fields: Readonly<Record<string, string>>
}

/** What an agent is asked to do. */
export interface AgentInput {
  /** The whole prompt: the instructions with the fields filled in. */
  readonly prompt: string
  /** The same prompt in parts, for runners that keep untrusted text apart; absent when a caller gave only text. */
  readonly parts?: PromptParts | undefined
  readonly route: string
  readonly event: string
  readonly deliveryId: string
}

/**
 * The outcome of one agent run. A failure is tried again on `agent.retry`'s schedule unless the runner marks it
 * `retryable: false`: what another try cannot fix (a program that is not installed, a rejected API key, an
 * answer past `max_output_bytes`). `retryAfterMs` is the wait the model API asked for (its `Retry-After`).
 */
export type AgentResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly reason: string; readonly retryable?: boolean | undefined; readonly retryAfterMs?: number | undefined }

/** What an agent run receives besides its input. */
export interface AgentContext extends PluginContext {
  /**
   * Runners that start programs call this with each process group they start (its leader's pid), so that if the
   * gateway dies, the next start can find and kill what the run left.
   */
  readonly onSpawn?: ((pid: number) => void) | undefined
  /**
   * Variables this run's programs get on top of the runner's environment, `null` removing one: the job's own
   * credentials (a GitHub App's installation token for the event's repository, as `GH_TOKEN`), from the
   * plugins' {@link AgentEnvironmentSource}s. A runner that starts programs applies it with `runEnvironment`.
   */
  readonly env?: AgentEnvironment | undefined
}

/** Variables to set for one agent run (`null`: remove the variable the runner's environment holds). */
export type AgentEnvironment = Readonly<Record<string, string | null>>

/** The job an agent run is for, as {@link AgentEnvironmentSource} sees it. */
export interface AgentJob {
  readonly route: string
  readonly event: string
  readonly deliveryId: string
  /** The event's payload: sender-controlled; read ids from it, never run or log it. */
  readonly payload: JsonObject
}

/**
 * What a plugin adds to (or removes from) the agent's environment for one job, asked right before each run:
 * short-lived credentials scoped to the event. A rejection fails the run without starting the agent, its
 * message as the reason.
 */
export type AgentEnvironmentSource = (job: AgentJob, ctx: PluginContext) => Promise<AgentEnvironment>

/** Runs the AI agent (a CLI, an API, or a stand-in) on a rendered prompt. */
export interface AgentRunner {
  readonly name: string
  /** True for a runner that answers with its prompt (`echo`): the gateway warns before it posts one anywhere public. */
  readonly echoesPrompt?: boolean | undefined
  /**
   * Startup check of what the runner needs outside the gateway (the program it runs is on PATH), run by
   * `serve`, `createGateway` and `hookpilot check` before any webhook is taken.
   */
  preflight?(): Promise<readonly StartupFinding[]>
  run(input: AgentInput, ctx: AgentContext): Promise<AgentResult>
}

/**
 * What a startup check found. A `problem` refuses the configuration (the start, `hookpilot check` exits 1): what
 * can never work, such as a program that is not installed. A `warning` is said loudly and the gateway starts:
 * what may be set right without a restart, or what the check cannot be sure of (`gh auth status` failing while
 * GitHub is down).
 */
export interface StartupFinding {
  readonly severity: 'problem' | 'warning'
  /** The configuration key to change (`agent.command`, `platforms.github.gh_path`). */
  readonly path: string
  readonly message: string
}

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
}

/**
 * The account the agent and its commands run as (`agent.user`, `agent.group`), resolved when the gateway is
 * composed: another user than the gateway's cannot read its memory or `/proc/<gateway>/environ`.
 */
export interface AgentUser {
  /** The name as configured (a user name or a number). */
  readonly name: string
  /** The user's id, which the programs run with. */
  readonly uid: number
  /** The group's id: `agent.group`'s, else the user's own; the supplementary groups are dropped. */
  readonly gid: number
  /** The user's home folder (`HOME` of the programs it runs); `/` when the account names none. */
  readonly home: string
}
