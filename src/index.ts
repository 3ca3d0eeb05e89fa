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
import {
  loadConfig as loadCoreConfig, parseConfig as parseCoreConfig, resolveConfig, type HookpilotConfig, type HookpilotConfigInput,
  type ParseConfigOptions,
} from './core/config/config.js'
import { buildGateway, configDir, type BuildOptions, type Gateway } from './core/gateway/gateway.js'
import { withEveryIssue } from './core/gateway/every-issue.js'
import { isPluginDefinition, type PluginDefinition } from './core/plugin-api/definition.js'
import type { GatewayPlugin } from './core/plugin-api/plugin.js'
import { BUILTIN_PLUGINS } from './plugins/builtins.js'
// An import and a separate export rather than `export * as v`: API Extractor, which writes api/*.api.md, cannot
// follow a namespace re-export of another package. What importers see is the same.
import * as v from 'valibot'

/** Options of the package's {@link parseConfig} and {@link loadConfig}. */
export interface ConfigOptions extends Omit<ParseConfigOptions, 'definitions' | 'loaded'> {
  /** Plugins whose sections this configuration holds, beyond the built-ins and its own `plugins:` list. */
  readonly plugins?: readonly PluginDefinition[] | undefined
}

const withBuiltins = (options: ConfigOptions): ParseConfigOptions => ({ ...options, definitions: [...BUILTIN_PLUGINS, ...(options.plugins ?? [])] })

/**
 * Validates a configuration given as a plain object (the shape of config.yaml): the core's keys and each
 * built-in plugin's section. Throws a ConfigError listing every problem, with its path.
 *
 * @example
 * ```ts
 * const config = parseConfig({ platforms: { webhook: { extra: { secret: '${WEBHOOK_SECRET}', routes: { pr: {} } } } } })
 * ```
 */
export function parseConfig(input: HookpilotConfigInput | HookpilotConfig, options: ConfigOptions = {}): HookpilotConfig {
  return parseCoreConfig(input, withBuiltins(options))
}

/**
 * Reads and validates a YAML configuration file, loading the plugin modules its `plugins:` lists.
 *
 * @example
 * ```ts
 * const gateway = await createGateway(await loadConfig('config.yaml'))
 * ```
 */
export async function loadConfig(path: string, options: ConfigOptions = {}): Promise<HookpilotConfig> {
  const parseOptions = withBuiltins(options)
  try {
    return await loadCoreConfig(path, parseOptions)
  } catch (err) {
    throw await withEveryIssue(err, { definitions: parseOptions.definitions ?? [], plugins: [] }, configDir(path))
  }
}

/**
 * Creates a gateway from a configuration (validated if it is a plain object, its `plugins:` loaded from
 * `options.baseDir`) and your plugins, which come after the built-ins: plugin definitions (`definePlugin` with
 * `setup`) are set up from their sections of the configuration; plugin objects fill slots (a one-implementation
 * slot takes the last value, delivery targets and event filters are added).
 *
 * @example
 * ```ts
 * const gateway = await createGateway(await loadConfig('config.yaml'), [auditLog])
 * http.createServer(gateway.handler).listen(8644)
 * ```
 */
export async function createGateway(
  config: HookpilotConfigInput | HookpilotConfig,
  plugins: readonly (GatewayPlugin | PluginDefinition)[] = [],
  options: BuildOptions = {},
): Promise<Gateway> {
  const yours = plugins.filter(isPluginDefinition)
  const definitions = [...BUILTIN_PLUGINS, ...yours]
  const objects = plugins.filter((p): p is GatewayPlugin => !isPluginDefinition(p))
  const baseDir = options.baseDir ?? process.cwd()
  let parsed: HookpilotConfig
  try {
    parsed = await resolveConfig(config, baseDir, { definitions })
  } catch (err) {
    throw await withEveryIssue(err, { definitions, plugins: objects }, baseDir)
  }
  return buildGateway(parsed, { definitions, plugins: objects }, options)
}

export type { HookpilotConfig, HookpilotConfigInput, RouteConfig, AgentConfig, StateConfig, PluginEntry } from './core/config/config.js'
export {
  configDir, type Gateway, type CloseOptions, type GatewayRequest, type GatewayResponse, type BuildOptions, type ListenAddress, type ListenOptions,
  type FetchHandler, type FetchInfo, type GatewayUsage, type ClientErrorListener,
} from './core/gateway/gateway.js'
export {
  subscriptionsPath, readSubscriptions, updateSubscriptions, resolveSubscriptions, type Subscription, type SubscriptionInput,
  type SubscriptionsFile, type SubscriptionsRead, type SkippedSubscription,
  fileSubscriptionStore, type SubscriptionStore, type SubscriptionChange,
} from './core/routes/subscriptions/index.js'
export {
  definePlugin, defineDeliveryTarget, defineAgentRunner, defineEventFilter, defineSources, defineStateBackend,
  defineRateLimiter, type GatewayPlugin, type PluginDefinition, type PluginSpec, type SetupContext, type Resources, type Selector,
  type SecretPath, type ObserveContext, type ConnectContext, type Endpoint, type EndpointRequest, type PluginRoute,
} from './core/plugin-api/plugin.js'
export type { EventIntake, SourcedEvent, IntakeResult } from './core/pipeline/intake.js'
export type { SourceRoutes } from './core/routes/source-routes.js'
export type { GatewayEvents, GatewayEventMap } from './core/events.js'
export { isPluginDefinition } from './core/plugin-api/definition.js'
export { runEnvironment } from './core/gateway/agent-environment.js'
export { integer, boolean, text, textList, nonBlank, idText } from './core/config/schema-kit.js'
export {
  /** valibot, the schema library of plugin options: the same copy the gateway validates with. */
  v,
}
export { GatewayError, ConfigError, ListenError, DeliveryError, type GatewayErrorCode, type ConfigIssue } from './core/errors.js'
export { renderTemplate } from './core/routes/template.js'
export { createSecretSet, type SecretSet, type SecretSetOptions } from './core/secrets/secret-set.js'
export { createLogger, silentLogger } from './core/log/logger.js'
export type { LogLevel, LoggerOptions } from './core/log/logger-options.js'
export type { NodeHandler } from './core/http/node.js'
export type * from './core/types.js'
export type * from './core/jobs/state-backend.js'

