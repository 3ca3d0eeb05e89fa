/**
 * The built-in plugins a gateway starts with, chosen from the configuration. User plugins come after these,
 * so theirs replace a built-in's slot or add to the many-slots.
 */
import type { HookpilotConfig } from '../core/config.js'
import { ConfigError, type ConfigIssue } from '../core/errors.js'
import type { GatewayPlugin } from '../core/plugin.js'
import type { StateBackend } from '../core/jobs.js'
import type { AgentRunner } from '../core/types.js'
import { resolve } from 'node:path'
import { commandAgent } from './command-agent/index.js'
import { echoAgent } from './echo-agent/index.js'
import { genericSource } from './generic-signature/index.js'
import { githubSource } from './github-signature/index.js'
import { gitlabSource } from './gitlab-token/index.js'
import { logDelivery } from './log-delivery/index.js'
import { memoryState } from './memory-state/index.js'
import { openaiAgent } from './openai-agent/index.js'
import type { SecretSet } from '../core/secrets.js'
import { subscriptionsPath } from '../core/subscriptions/index.js'
import { configSecretSet } from './shared/child-env.js'
import { gatherIssues } from './shared/gather-issues.js'
import { platformTargets } from './shared/platform-targets.js'
import { agentWorkdir } from './shared/workdir.js'
import { slidingWindowLimiter } from './sliding-window-limiter/index.js'
import { sqliteState } from './sqlite-state/index.js'

/**
 * The built-ins for a configuration: sources, the state backend `state.driver` names, limiter, the configured
 * runner, and the delivery targets: `log` and `github_comment` always, each chat platform only when
 * `platforms.<name>.enabled`. `baseDir` is where a relative `state.path` is resolved. `secrets` is the
 * gateway's secret set (one that knows the configuration's secrets by default).
 */
export function builtinPlugins(config: HookpilotConfig, baseDir: string = process.cwd(), secrets: SecretSet = configSecretSet(config)): GatewayPlugin[] {
  const issues: ConfigIssue[] = []
  // Programs the gateway runs get its environment less its own secrets, in a folder of their own.
  const env = secrets.childEnv()
  const subscriptions = subscriptionsPath(config, baseDir)
  const workdir = gatherIssues(() => agentWorkdir(config.agent.workdir, baseDir, [baseDir, ...(subscriptions === undefined ? [] : [subscriptions])]), issues)
  const child = { env, cwd: workdir?.path, redact: secrets.redact }
  const runner = gatherIssues(() => builtinRunner(config, child), issues)
  const targets = gatherIssues(() => platformTargets(config.platforms, child), issues) ?? []
  if (issues.length > 0 || workdir === undefined) throw new ConfigError(issues)
  return [
    {
      name: 'builtin',
      // The order is the request table's: X-Hub-Signature-256 decides if present, then X-Gitlab-Token, then X-Webhook-Signature.
      sources: [githubSource(), gitlabSource(), genericSource()],
      state: stateBackend(config, baseDir),
      rateLimiter: slidingWindowLimiter(),
      deliveryTargets: [logDelivery(), ...targets],
      ...(runner ? { agentRunner: runner } : {}),
    },
    workdir.plugin,
  ]
}

/** The backend `state:` chooses. */
export function stateBackend(config: HookpilotConfig, baseDir: string): StateBackend {
  const { state, agent } = config
  const bounds = { concurrency: agent.concurrency, maxQueue: agent.max_queue }
  if (state.driver === 'memory') return memoryState(bounds)
  return sqliteState({
    ...bounds,
    path: resolve(baseDir, state.path),
    sync: state.sync,
    keepDoneMs: state.keep_done_hours * 3_600_000,
    keepFailedMs: state.keep_failed_days * 86_400_000,
  })
}

/** How the programs the gateway runs are started: their environment, their folder, and what is redacted from their output. */
interface ChildSetup {
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string | undefined
  readonly redact: (text: string) => string
}

function builtinRunner(config: HookpilotConfig, { env, cwd, redact }: ChildSetup): AgentRunner | undefined {
  const agent = config.agent
  switch (agent.runner) {
    case 'echo':
      return echoAgent()
    case 'command':
      if (!agent.command) {
        throw new ConfigError([{ path: 'agent.command', message: 'the command runner needs the program to run, e.g. command: ["claude", "-p"]' }])
      }
      return commandAgent({ command: agent.command, timeoutMs: agent.timeout_seconds * 1000, maxOutputBytes: agent.max_output_bytes, env, cwd })
    case 'openai':
      return openaiAgent({
        baseUrl: agent.base_url,
        apiKey: agent.api_key,
        model: agent.model,
        system: agent.system,
        maxSteps: agent.max_steps,
        maxCommandsPerReply: agent.max_commands_per_reply,
        timeoutMs: agent.timeout_seconds * 1000,
        allowCommands: agent.allow_commands,
        commandTimeoutMs: agent.command_timeout_seconds * 1000,
        maxToolOutputBytes: agent.max_tool_output_bytes,
        env,
        cwd,
        redact,
      })
    default:
      return undefined // a plugin's runner, chosen by name when the gateway is composed
  }
}
