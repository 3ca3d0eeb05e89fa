import { reviewAnswer } from './review-answer.js'
import { ConfigError } from '../../../core/errors.js'
import type { AgentRunner, AgentSandbox } from '../../../core/types.js'
import { runEnvironment } from '../../../core/agents/setup/agent-environment.js'
import { inRunFolder } from '../../../core/agents/run-folder.js'
import { runProcess } from '../../../core/agents/run-process.js'
import { failureReason, retryableFailure } from './failure.js'
import { readOutput, type AgentOutput } from './agent-output.js'

/** Options of {@link commandAgent}. */
export interface CommandAgentOptions {
  /** The program and its arguments (`agent.command`), run without a shell; the prompt goes to its stdin. */
  readonly command: readonly string[]
  /** A run longer than this is killed with everything it started (`agent.timeout_seconds` × 1000). */
  readonly timeoutMs: number
  /** Most stdout bytes accepted as an answer; more fails the run. Defaults to 1 MiB. */
  readonly maxOutputBytes?: number | undefined
  /** Where the program runs; sandboxed, each run gets a new folder of its own inside it. */
  readonly cwd?: string | undefined
  /** The program's whole environment. Defaults to the gateway's own. */
  readonly env?: NodeJS.ProcessEnv | undefined
  /** The account the program runs as (`agent.user`); the gateway's own by default. */
  readonly runAs?: { readonly uid: number; readonly gid: number } | undefined
  /** The sandbox the program (and all it starts) runs in (`agent.sandbox`); none by default. */
  readonly sandbox?: AgentSandbox | undefined
  /** Time the program gets to exit after SIGTERM before SIGKILL. Defaults to 2,000 ms. */
  readonly killGraceMs?: number | undefined
  /**
   * How stdout is read (`agent.output`): `text` (the answer itself, the default), `claude-json` (`claude -p
   * --output-format json`) or `codex-jsonl` (`codex exec --json`), which also report what the run used.
   */
  readonly output?: AgentOutput | undefined
  /** The model the CLI runs (`agent.model`), for the price table and the model limits when its output names none. */
  readonly model?: string | undefined
}

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024

/**
 * The `command` agent runner: runs a configured program (an agent CLI such as `claude -p`) with the prompt on
 * stdin and takes its stdout as the answer. A non-zero exit, a timeout, too much output or a missing program is
 * a failed run whose reason says what to change.
 *
 * @example
 * ```ts
 * const runner = commandAgent({ command: ['claude', '-p'], timeoutMs: 600_000 })
 * const result = await runner.run({ prompt, route, event, deliveryId }, { signal, log })
 * ```
 */
export function commandAgent(options: CommandAgentOptions): AgentRunner {
  const { command, timeoutMs } = options
  const program = command[0]
  if (program === undefined || program === '') {
    throw new ConfigError([{ path: 'agent.command', message: 'must name the program to run, e.g. ["claude", "-p"]' }])
  }
  if (!(timeoutMs > 0)) {
    throw new ConfigError([{ path: 'agent.timeout_seconds', message: 'must be a positive number' }])
  }
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES
  const argv = [...command] // a later change to the caller's array must not change what runs
  const output = options.output ?? 'text'

  const maxUsd = maxBudgetUsd(argv)
  return {
    name: 'command',
    // claude's own cap on a run's spend: a budget reserves it instead of costs.budgets.reserve_usd.
    ...(maxUsd === undefined ? {} : { maxUsage: { usd: maxUsd } }),
    // The CLI calls the model API itself: its runs start only while the model's limit has room (costs.model_limits).
    ...(options.model === undefined ? {} : { model: options.model }),
    async run(input, ctx) {
      if (ctx.signal.aborted) return { ok: false, reason: 'aborted before the run started' }
      const started = Date.now()
      // Sandboxed, the run works in a folder of its own, which no other job's agent can see.
      const result = await inRunFolder(options.sandbox, options.cwd, options.runAs, (cwd) => runProcess(argv, {
        input: input.prompt,
        timeoutMs,
        maxOutputBytes,
        signal: ctx.signal,
        cwd,
        env: runEnvironment(options.env, ctx.env),
        runAs: options.runAs,
        sandbox: options.sandbox,
        killGraceMs: options.killGraceMs,
        onSpawn: ctx.onSpawn,
      }))
      ctx.log.debug('agent command finished', {
        route: input.route,
        delivery: input.deliveryId,
        program,
        code: result.code ?? result.signal ?? result.error?.code,
        ms: Date.now() - started,
      })
      const reason = failureReason(result, { program, timeoutMs, maxOutputBytes })
      // A CLI that failed may still have printed what it used (claude's JSON on an error exit): it is counted.
      const read = readOutput(result.stdout, output, options.model)
      if (reason !== undefined) return { ok: false, reason, retryable: retryableFailure(result), usage: read.usage }
      if (!read.ok || input.format !== 'review') return read
      // A route that wants a review document: the document out of an agent CLI's JSON envelope (claude's whole
      // envelope, whose structured_output is the document), its nulls left out.
      return { ...read, text: reviewAnswer(output === 'claude-json' ? result.stdout : read.text) }
    },
  }
}

/** The dollars `--max-budget-usd` caps a claude run at (`--max-budget-usd 0.50` or `--max-budget-usd=0.50`), if the command sets it. */
function maxBudgetUsd(argv: readonly string[]): number | undefined {
  for (const [i, arg] of argv.entries()) {
    const value = arg === '--max-budget-usd' ? argv[i + 1] : arg.startsWith('--max-budget-usd=') ? arg.slice('--max-budget-usd='.length) : undefined
    if (value === undefined) continue
    const usd = Number(value)
    if (Number.isFinite(usd) && usd >= 0) return usd
  }
  return undefined
}
