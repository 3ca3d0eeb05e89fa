/**
 * What an agent runner is given and answers: the prompt, the run's context and environment, the outcome, the
 * account it runs as, and what its startup check found.
 */
import type { JsonObject, PluginContext } from './context-types.js'
import type { RunUsage, UsageBound } from './usage.js'

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
  /**
   * `review` when the route's target takes a review document (its `answerFormat`): a runner that can ask its
   * model for structured output asks for the shipped review schema. Absent: free text.
   */
  readonly format?: 'text' | 'review' | undefined
}

/**
 * The outcome of one agent run. A failure is tried again on `agent.retry`'s schedule unless the runner marks it
 * `retryable: false`: what another try cannot fix (a program that is not installed, a rejected API key, an
 * answer past `max_output_bytes`). `retryAfterMs` is the wait the model API asked for (its `Retry-After`).
 * `usage` is what the run used (tokens, and a cost where the agent knows it), a failed run's too: it is stored
 * with the job, counted in the metrics and charged to the budgets.
 */
export type AgentResult =
  | { readonly ok: true; readonly text: string; readonly usage?: RunUsage | undefined }
  | {
      readonly ok: false
      readonly reason: string
      readonly retryable?: boolean | undefined
      readonly retryAfterMs?: number | undefined
      readonly usage?: RunUsage | undefined
    }

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
  /**
   * The model API's limits shared by every run of every instance (`costs.model_limits`): a runner that calls a
   * model API takes a turn before each call, reports what the call used beyond its booking, and slows the
   * model down on a `429` instead of failing. Absent when no limit is configured.
   */
  readonly modelLimits?: ModelLimits | undefined
}

/** The model API's limits, per model, as a run's calls take their turns. */
export interface ModelLimits {
  /** Whether `model` has a limit at all. */
  limited(model: string): boolean
  /** How long before `model` has room for a request (0: now), booking nothing. */
  wait(model: string): Promise<number>
  /** Books the next slot of `model` for a request of about `tokens` tokens and waits for it (rejects once `signal` aborts). */
  take(model: string, tokens: number, signal: AbortSignal): Promise<void>
  /** Books the tokens a call used beyond its estimate (negative: fewer). */
  used(model: string, extraTokens: number): Promise<void>
  /** The API answered `429` asking to wait `retryAfterMs`: no run sends to `model` before then. */
  slowDown(model: string, retryAfterMs: number): Promise<void>
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
  /**
   * The largest cost one run can reach, where the runner bounds it (the command runner reads claude's
   * `--max-budget-usd`): a budget reserves this much for the run instead of `costs.budgets.reserve_*`.
   */
  readonly maxUsage?: UsageBound | undefined
  /**
   * The model the runner sends to, where it knows it (`agent.model`): a run of a model whose limit
   * (`costs.model_limits`) has no room waits in the queue instead of starting.
   */
  readonly model?: string | undefined
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

/**
 * The sandbox the agent and its commands run in (`agent.sandbox`), made when the gateway is composed where the
 * machine can make one. A runner passes it to `runProcess`, which starts each program through it.
 */
export interface AgentSandbox {
  /** What makes it (`bubblewrap`), for logs. */
  readonly name: string
  /**
   * The argv that runs `argv` inside the sandbox, in (and able to write only to) the folder `cwd`, with `env`
   * (the program's environment; its HOME is made an empty private folder). A runner gives each run a folder of
   * its own (`cwd`); given the gateway's shared working folder itself, the program finds it empty.
   */
  wrap(argv: readonly string[], cwd: string, env?: NodeJS.ProcessEnv): string[]
  /**
   * Whether a program run with `env` sees `path` inside the sandbox (false for what the sandbox hides: a home
   * folder, a private path), so that an agent program installed where it is hidden is refused at start.
   */
  visible?(path: string, env?: NodeJS.ProcessEnv): boolean
}
