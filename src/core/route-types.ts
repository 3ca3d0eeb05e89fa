/** What a route is, as the pipeline, the dispatcher and the targets see it. */

/**
 * The literal secret value that turns signature checks off, for local tools that cannot sign. Accepted only on a
 * loopback bind: on any other address, anyone who can reach the port could make the agent run. It lives in the
 * kernel because the secrets, the routes and the pipeline all recognise it.
 */
export const INSECURE_NO_AUTH = 'INSECURE_NO_AUTH'

/** What a route does with a verified request over its rate limit: refuse it (429), or store it for later (202). */
export type OverLimit = 'reject' | 'defer'

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
  /** A template over the payload (`fair_by`): jobs of different rendered keys are leased round-robin. */
  readonly fairBy?: string | undefined
  /** How long a queued job may wait to start (`start_within_seconds`, in ms); past it, it ends `skipped` (expired). */
  readonly startWithinMs?: number | undefined
  readonly source: 'static' | 'dynamic'
  readonly description: string | undefined
  /** The route's `policy` section: repositories' policy files and pull-request commands (docs/policy.md). */
  readonly policy?: RoutePolicy | undefined
}

/**
 * A route's `policy` section, resolved: whether and how a repository's policy file is read (from the pull
 * request's base branch), which of its keys the repository may set, and who may command the bot.
 */
export interface RoutePolicy {
  /** The policy file's path in the repository (`.hookpilot.yml`); undefined: no file is read. */
  readonly file: string | undefined
  /** The largest policy file read, in bytes; a larger one is reported and the gateway's settings apply. */
  readonly maxBytes: number
  /** The policy keys a repository may set (`filters`, `filters.skip_drafts`, `instructions`, `settings.fail_on`...). */
  readonly allow: readonly string[]
  /** Pull-request commands (`@bot review`), or undefined when the route takes none. */
  readonly commands: RouteCommands | undefined
}

/** Who may command the bot on a pull request, and by which name. */
export interface RouteCommands {
  /** The name commands are addressed to, without `@` (`hookpilot` for `@hookpilot review`). */
  readonly bot: string
  /** The comment authors' associations that may command (`OWNER`, `MEMBER`, `COLLABORATOR`). */
  readonly trusted: readonly string[]
  /** Also ask the code host for the commenter's permission on the repository, and trust `write` or `admin`. */
  readonly askPermission: boolean
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
