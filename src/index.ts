/**
 * hookpilot: a webhook gateway that runs an AI agent on pull-request events and delivers its answer.
 *
 * @example
 * ```ts
 * import { createGateway, loadConfig } from 'hookpilot'
 * const gateway = await createGateway(await loadConfig('config.yaml'))
 * await gateway.listen()
 * ```
 * @packageDocumentation
 */
import { parseConfig, type HookpilotConfig, type HookpilotConfigInput } from './core/config.js'
import { buildGateway, type BuildOptions, type Gateway } from './core/gateway.js'
import type { GatewayPlugin } from './core/plugin.js'
import { createSecretSet } from './core/secrets.js'
import { builtinPlugins } from './plugins/builtins.js'
import { configSecrets } from './plugins/shared/child-env.js'

/**
 * Creates a gateway from a configuration (validated if it is a plain object) and your plugins, which come after
 * the built-ins: a plugin filling a one-implementation slot replaces the built-in, delivery targets and event
 * filters are added.
 *
 * @example
 * ```ts
 * const gateway = await createGateway(await loadConfig('config.yaml'), [auditLog])
 * http.createServer(gateway.handler).listen(8644)
 * ```
 */
export async function createGateway(
  config: HookpilotConfigInput | HookpilotConfig,
  plugins: readonly GatewayPlugin[] = [],
  options: BuildOptions = {},
): Promise<Gateway> {
  const parsed = parseConfig(config)
  const secrets = options.secrets ?? createSecretSet()
  secrets.set('config', configSecrets(parsed))
  return buildGateway(parsed, [...builtinPlugins(parsed, options.baseDir, secrets), ...plugins], { ...options, secrets })
}

export { loadConfig, parseConfig, type ParseConfigOptions } from './core/config.js'
export type { HookpilotConfig, HookpilotConfigInput, RouteConfig, AgentConfig, StateConfig } from './core/config.js'
export { configDir, type Gateway, type GatewayUsage, type ClientErrorListener, type GatewayRequest, type GatewayResponse, type BuildOptions, type ListenAddress, type ListenOptions } from './core/gateway.js'
export {
  subscriptionsPath, readSubscriptions, updateSubscriptions, resolveSubscriptions, type Subscription, type SubscriptionInput,
  type SubscriptionsFile, type SubscriptionsRead, type SkippedSubscription,
} from './core/subscriptions/index.js'
export {
  definePlugin, defineDeliveryTarget, defineAgentRunner, defineEventFilter, defineSources, defineStateBackend,
  defineRateLimiter, type GatewayPlugin,
} from './core/plugin.js'
export { GatewayError, ConfigError, ListenError, AgentError, DeliveryError, type GatewayErrorCode, type ConfigIssue } from './core/errors.js'
export { renderTemplate } from './core/template.js'
export { createSecretSet, type SecretSet, type SecretSetOptions } from './core/secrets.js'
export { createLogger, silentLogger, type LogLevel, type LoggerOptions } from './core/logger.js'
export { DEFAULT_RETRY, MAX_RUNS, type RetryPolicy } from './core/dispatcher.js'
export type { NodeHandler } from './core/http.js'
export type * from './core/types.js'
export type * from './core/jobs.js'
export * from './plugins/index.js'
