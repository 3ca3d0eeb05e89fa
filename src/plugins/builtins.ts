/**
 * The built-in plugins a gateway starts with, chosen from the configuration. User plugins come after these,
 * so theirs replace a built-in's slot or add to the many-slots.
 */
import type { HookpilotConfig } from '../core/config.js'
import { ConfigError } from '../core/errors.js'
import type { GatewayPlugin } from '../core/plugin.js'
import type { AgentRunner } from '../core/types.js'
import { commandAgent } from './command-agent/index.js'
import { echoAgent } from './echo-agent/index.js'
import { genericSignatureVerifier } from './generic-signature/index.js'
import { githubSignatureVerifier } from './github-signature/index.js'
import { gitlabTokenVerifier } from './gitlab-token/index.js'
import { logDelivery } from './log-delivery/index.js'
import { memoryIdempotencyStore } from './memory-idempotency/index.js'
import { slidingWindowLimiter } from './sliding-window-limiter/index.js'

/** The built-ins for a configuration: verifiers, store, limiter, log delivery and the configured runner. */
export function builtinPlugins(config: HookpilotConfig): GatewayPlugin[] {
  const runner = builtinRunner(config)
  return [
    {
      name: 'builtin',
      // The order is the request table's: X-Hub-Signature-256 decides if present, then X-Gitlab-Token, then X-Webhook-Signature.
      verifiers: [githubSignatureVerifier(), gitlabTokenVerifier(), genericSignatureVerifier()],
      idempotencyStore: memoryIdempotencyStore(),
      rateLimiter: slidingWindowLimiter(),
      deliveryTargets: [logDelivery()],
      ...(runner ? { agentRunner: runner } : {}),
    },
  ]
}

function builtinRunner(config: HookpilotConfig): AgentRunner | undefined {
  const agent = config.agent
  switch (agent.runner) {
    case 'echo':
      return echoAgent()
    case 'command':
      if (!agent.command) {
        throw new ConfigError([{ path: 'agent.command', message: 'the command runner needs the program to run, e.g. command: ["claude", "-p"]' }])
      }
      return commandAgent({ command: agent.command, timeoutMs: agent.timeout_seconds * 1000, maxOutputBytes: agent.max_output_bytes })
    default:
      return undefined // a plugin's runner, chosen by name when the gateway is composed
  }
}
