import { runEnvironment } from '../../../core/agents/setup/agent-environment.js'
import { inRunFolder } from '../../../core/agents/run-folder.js'
import { ConfigError, type ConfigIssue } from '../../../core/errors.js'
import type { AgentInput, AgentResult, AgentRunner, AgentContext, AgentSandbox, ModelLimits } from '../../../core/types.js'
import { openingMessages } from './messages.js'
import { allowList, runCommand, runCommandTool, type CommandPolicy } from './run-command.js'
import { modelClient, type ChatMessage, type Completion, type ToolCall } from './wire.js'
import { addUsage, type RunUsage } from '../../../core/usage.js'
import { fromStructuredOutput, REVIEW_OUTPUT_NAME, REVIEW_OUTPUT_SCHEMA } from '../../../core/review/structured-output.js'

/**
 * What a run whose route wants a review document asks the model for: the document's schema, strictly (OpenAI's
 * Structured Outputs; servers that copy the API take the same field).
 */
const REVIEW_FORMAT = {
  type: 'json_schema',
  json_schema: {
    name: REVIEW_OUTPUT_NAME,
    description: 'A code review of the pull request: a summary and findings anchored to lines of its diff.',
    schema: REVIEW_OUTPUT_SCHEMA,
    strict: true,
  },
} as const

/** Options of {@link openaiAgent} (`agent:` with `runner: openai`). */
export interface OpenaiAgentOptions {
  /** As OpenAI clients take it: `https://api.openai.com/v1`, `https://openrouter.ai/api/v1`, `http://127.0.0.1:11434/v1`. */
  readonly baseUrl: string | undefined
  /** Sent as a bearer token; local servers may need none. */
  readonly apiKey?: string | undefined
  readonly model: string | undefined
  /** The operator's instructions; the untrusted-data notice is always added after them. */
  readonly system?: string | undefined
  /** Most model calls in one run (`agent.max_steps`). Defaults to 8. */
  readonly maxSteps?: number | undefined
  /**
   * Most commands one model reply may start (`agent.max_commands_per_reply`); the calls past it are answered
   * "not run" without running. Defaults to 4.
   */
  readonly maxCommandsPerReply?: number | undefined
  /** Most bytes of the answer (`agent.max_output_bytes`); a longer one fails the run. Defaults to 1 MiB. */
  readonly maxOutputBytes?: number | undefined
  /** The whole run's time limit (`agent.timeout_seconds` × 1000). Defaults to 600,000 ms. */
  readonly timeoutMs?: number | undefined
  /** Command prefixes the model may run (`"gh pr diff"` or `["gh", "pr", "diff"]`). Defaults to none. */
  readonly allowCommands?: readonly (string | readonly string[])[] | undefined
  /** One command's time limit. Defaults to 60,000 ms. */
  readonly commandTimeoutMs?: number | undefined
  /** Most bytes of a command's output handed to the model. Defaults to 64 KiB. */
  readonly maxToolOutputBytes?: number | undefined
  /** The commands' environment (where `GH_TOKEN` comes from). Defaults to the gateway's own. */
  readonly env?: NodeJS.ProcessEnv | undefined
  /** The account the commands run as (`agent.user`); the gateway's own by default. */
  readonly runAs?: { readonly uid: number; readonly gid: number } | undefined
  /** The sandbox the commands run in (`agent.sandbox`); none by default. */
  readonly sandbox?: AgentSandbox | undefined
  /** The commands' working directory; the gateway's own by default. Sandboxed, each run gets a new folder inside it. */
  readonly cwd?: string | undefined
  /**
   * Applied to a command's output before the model sees it (the gateway passes its secret set's redactor);
   * by default the values of GH_TOKEN and GITHUB_TOKEN and token-shaped strings are redacted.
   */
  readonly redact?: ((text: string) => string) | undefined
  /** Replaces the global fetch; read at call time, so msw can patch the global one. */
  readonly fetch?: typeof globalThis.fetch | undefined
  /**
   * When a route wants a review document (its target is in review mode: `input.format` is `review`), ask the model
   * for the document's JSON Schema as structured output (`response_format` json_schema, strict). Defaults to true;
   * false (`agent.structured_output: false`) for a server that refuses the field: the prompt must then ask for
   * the document itself.
   */
  readonly structuredOutput?: boolean | undefined
}

/**
 * The `openai` agent runner: works with any OpenAI-compatible chat-completions server. The model may call one
 * tool, `run_command`, limited to the allowed command prefixes; the run ends with the model's first answer that
 * asks for no command. A run that reaches `maxSteps` model calls without one fails (nothing half-done is posted,
 * and the delivery id is released so a redelivery runs again).
 *
 * @example
 * ```ts
 * const runner = openaiAgent({
 *   baseUrl: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY, model: 'gpt-4.1-mini',
 *   allowCommands: ['gh pr diff', 'gh pr view'],
 * })
 * const gateway = await createGateway(config, [definePlugin({ name: 'my-openai', setup: () => ({ name: 'my-openai', agentRunner: runner }) })])
 * ```
 */
export function openaiAgent(options: OpenaiAgentOptions): AgentRunner {
  checkOptions(options)
  const model = options.model ?? ''
  const maxSteps = options.maxSteps ?? 8
  const maxCommands = options.maxCommandsPerReply ?? 4
  const timeoutMs = options.timeoutMs ?? 600_000
  const allow = allowList(options.allowCommands ?? [])
  const policy: CommandPolicy = {
    allow,
    timeoutMs: options.commandTimeoutMs ?? 60_000,
    maxOutputBytes: options.maxToolOutputBytes ?? 64 * 1024,
    env: options.env,
    cwd: options.cwd,
    runAs: options.runAs,
    sandbox: options.sandbox,
    redact: options.redact,
  }
  const maxOutputBytes = options.maxOutputBytes ?? 1_048_576
  // A reply carries the answer JSON-escaped (up to 6 bytes a character for controls) and some envelope.
  const complete = modelClient({ baseUrl: options.baseUrl ?? '', apiKey: options.apiKey, fetch: options.fetch, maxResponseBytes: 6 * maxOutputBytes + 65_536 })
  const tools = allow.length === 0 ? {} : { tools: [runCommandTool(allow)] }

  async function loop(input: AgentInput, ctx: AgentContext, signal: AbortSignal, cwd: string | undefined, spent: Spent): Promise<AgentResult> {
    const messages: ChatMessage[] = openingMessages(input, options.system, allow)
    const fields = { route: input.route, delivery: input.deliveryId }
    const structured = input.format === 'review' && options.structuredOutput !== false
    const format = structured ? { response_format: REVIEW_FORMAT } : {}
    const limits = ctx.modelLimits?.limited(model) === true ? ctx.modelLimits : undefined
    for (let step = 1; step <= maxSteps; step++) {
      ctx.log.debug('model call', { ...fields, step, model })
      const reply = await paced(limits, messages, signal, () => complete({ model, messages, ...tools, ...format }, signal))
      // Every call the API counted is added up, the failed run's too: its tokens were billed all the same.
      if (reply.usage !== undefined) spent.usage = addUsage(spent.usage, { ...reply.usage, model }) // the configured name: the one costs.prices and costs.model_limits use
      if (!reply.ok) return reply
      const calls = reply.message.tool_calls ?? []
      if (calls.length === 0) {
        // A refusal is the model's answer, not an outage: another run would most likely refuse again.
        if (reply.message.content === null && reply.message.refusal) return { ok: false, reason: `the model refused: ${reply.message.refusal.slice(0, 300)}`, retryable: false }
        const text = structured ? fromStructuredOutput(reply.message.content ?? '') : reply.message.content ?? ''
        if (Buffer.byteLength(text) > maxOutputBytes) {
          return { ok: false, reason: `the model answered more than ${maxOutputBytes} bytes; raise agent.max_output_bytes if that much is expected`, retryable: false }
        }
        return { ok: true, text }
      }
      messages.push({ role: 'assistant', content: reply.message.content, tool_calls: calls })
      if (calls.length > maxCommands) {
        ctx.log.warn('model asked for more commands in one reply than allowed: the rest were not run', { ...fields, asked: calls.length, limit: maxCommands })
      }
      // Every call gets its answer (the API requires one per call id); only the first few run.
      for (const [i, call] of calls.entries()) {
        const content = i < maxCommands
          ? await useTool(call, ctx, signal, fields, cwd)
          : `error: not run: at most ${maxCommands} commands per reply (agent.max_commands_per_reply); ask for the rest in your next reply`
        messages.push({ role: 'tool', tool_call_id: call.id, content })
      }
    }
    const reason = `no final answer after ${maxSteps} model calls: the model kept asking for commands (raise agent.max_steps if the task needs more)`
    return { ok: false, reason, retryable: false }
  }

  /**
   * One call within the model's shared limit: it takes its turn first, books the tokens it used beyond the
   * estimate after, and on a `429` slows the model down for every run (by its `Retry-After`) and calls again
   * once its turn comes, instead of failing the run; the run's timeout bounds how long.
   */
  async function paced(limits: ModelLimits | undefined, messages: readonly ChatMessage[], signal: AbortSignal, call: () => Promise<Completion>): Promise<Completion> {
    if (limits === undefined) return call()
    // About four characters a token: a guess the reply's usage corrects.
    const estimate = Math.ceil(JSON.stringify(messages).length / 4)
    for (;;) {
      await limits.take(model, estimate, signal)
      const reply = await call()
      if (!reply.ok && reply.status === 429) {
        await limits.slowDown(model, reply.retryAfterMs ?? DEFAULT_429_WAIT_MS)
        continue
      }
      if (reply.usage !== undefined) await limits.used(model, reply.usage.inputTokens + reply.usage.outputTokens - estimate)
      return reply
    }
  }

  async function useTool(call: ToolCall, ctx: AgentContext, signal: AbortSignal, fields: Record<string, string>, cwd: string | undefined): Promise<string> {
    if (call.function.name !== 'run_command') {
      // Like a refused command, a made-up tool is how a prompt injection can show itself.
      ctx.log.warn('agent asked for a tool that does not exist', { ...fields, tool: call.function.name.slice(0, 100) })
      return `error: there is no tool "${call.function.name}"; the only tool is run_command`
    }
    // The job's own credentials (ctx.env) reach the commands; the policy's environment is the runner's.
    const env = runEnvironment(policy.env, ctx.env)
    const outcome = await runCommand(call.function.arguments, { ...policy, env, cwd }, signal, ctx.onSpawn)
    const command = outcome.argv?.join(' ').slice(0, 200) ?? '(unreadable arguments)'
    // A refused command is worth a warning: it is how a prompt injection in a payload shows itself.
    if (!outcome.allowed) ctx.log.warn('agent command refused', { ...fields, command })
    else if (outcome.notStarted !== undefined) ctx.log.warn('agent command could not start', { ...fields, command, code: outcome.notStarted })
    else ctx.log.info('agent ran a command', { ...fields, command })
    return outcome.content
  }

  return {
    name: 'openai',
    model,
    async run(input, ctx) {
      if (ctx.signal.aborted) return { ok: false, reason: 'aborted before the run started' }
      const timeout = AbortSignal.timeout(timeoutMs)
      const signal = AbortSignal.any([ctx.signal, timeout])
      const spent: Spent = { usage: undefined }
      const withUsage = (result: AgentResult): AgentResult => (spent.usage === undefined ? result : { ...result, usage: spent.usage })
      try {
        // Sandboxed, the run's commands share a folder of their own, which no other job's agent can see.
        return withUsage(await inRunFolder(policy.sandbox, policy.cwd, policy.runAs, (cwd) => loop(input, ctx, signal, cwd, spent)))
      } catch (error) {
        if (!signal.aborted) throw error
        const timedOut = timeout.aborted || (ctx.signal.reason as Error | undefined)?.name === 'TimeoutError'
        return withUsage({ ok: false, reason: timedOut ? `timed out after ${timeoutMs} ms (agent.timeout_seconds)` : 'aborted: the run was cancelled' })
      }
    },
  }
}

/** How long a model is slowed down after a `429` that names no `Retry-After`. */
const DEFAULT_429_WAIT_MS = 5_000

/** What a run's model calls used so far: kept outside the loop, so a run cut off by a timeout still reports it. */
interface Spent {
  usage: RunUsage | undefined
}

function checkOptions(options: OpenaiAgentOptions): void {
  const issues: ConfigIssue[] = []
  if (!/^https?:\/\/[^/]/i.test(options.baseUrl ?? '')) {
    issues.push({ path: 'agent.base_url', message: 'the openai runner needs the API base URL, e.g. https://api.openai.com/v1' })
  }
  if ((options.model ?? '').trim() === '') issues.push({ path: 'agent.model', message: 'the openai runner needs a model name' })
  if (issues.length > 0) throw new ConfigError(issues)
}
