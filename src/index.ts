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
import type { HookpilotConfig, HookpilotConfigInput } from './core/config/schema.js'
import {
  loadConfig as loadCoreConfig, parseConfig as parseCoreConfig, resolveConfig, type ParseConfigOptions,
} from './core/plugin-api/load-config.js'
import { buildGateway, configDir, type BuildOptions, type Gateway } from './core/gateway/gateway.js'
import { withEveryIssue } from './core/gateway/every-issue.js'
import { isPluginDefinition, type PluginDefinition } from './core/plugin-api/definition.js'
import { GatewayError } from './core/errors.js'
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
 * `options.baseDir`) and your plugins: each a {@link definePlugin} definition, set up from its section of the
 * configuration after the built-ins, in order (a one-implementation slot takes the last plugin's value,
 * delivery targets and event filters are added).
 *
 * @example
 * ```ts
 * const gateway = await createGateway(await loadConfig('config.yaml'), [auditLog])
 * http.createServer(gateway.handler).listen(8644)
 * ```
 */
export async function createGateway(
  config: HookpilotConfigInput | HookpilotConfig,
  plugins: readonly PluginDefinition[] = [],
  options: BuildOptions = {},
): Promise<Gateway> {
  for (const plugin of plugins) {
    if (isPluginDefinition(plugin)) continue
    // Plain plugin objects were accepted before 0.2: say how to wrap one rather than set up something else.
    const name = typeof plugin === 'object' && plugin !== null && typeof (plugin as { name?: unknown }).name === 'string' ? (plugin as { name: string }).name : 'plugin'
    throw new GatewayError('ERR_PLUGIN', `plugin "${name}" is not a plugin definition; wrap it: definePlugin({ name: '${name}', setup: () => plugin })`)
  }
  const definitions = [...BUILTIN_PLUGINS, ...plugins]
  const baseDir = options.baseDir ?? process.cwd()
  let parsed: HookpilotConfig
  try {
    parsed = await resolveConfig(config, baseDir, { definitions })
  } catch (err) {
    throw await withEveryIssue(err, { definitions, plugins: [] }, baseDir)
  }
  return buildGateway(parsed, { definitions, plugins: [] }, options)
}

// What the root exports, in explicit lists: embedding a gateway, writing a plugin (definePlugin, the slots'
// interfaces and the values their methods take), errors, the logger and the schema helpers. Everything else is a
// subpath's (hookpilot/subscriptions, hookpilot/backend-kit, hookpilot/testing) or internal.
export type { HookpilotConfig, HookpilotConfigInput } from './core/config/schema.js'
export type { Gateway, BuildOptions, ListenOptions, GatewayRequest, GatewayResponse } from './core/gateway/gateway.js'
export type { Endpoint } from './core/http/endpoint.js'
export type { PluginDefinition, PluginSpec, SetupContext, SecretPath } from './core/plugin-api/definition.js'
export type { GatewayPlugin, ObserveContext } from './core/plugin-api/gateway-plugin.js'
export { definePlugin } from './core/plugin-api/plugin.js'
export type { GatewayEvents, GatewayEventMap } from './core/events.js'
export type {
  Source, Verifier, RawRequest, VerifyResult, WebhookEvent, EventFilter, RateLimiter, RateDecision, AgentRunner, AgentInput, AgentContext,
  AgentResult, DeliveryTarget, DeliveryContext, DeliveryReceipt, AgentAnswer, AnswerFormat, EndedJob, FollowUp, PromptContext, PromptRequest, StartedJob, TargetJob, Route, Clock, Logger, JsonObject, RunUsage, UsageBound,
} from './core/types.js'
export type { RoutePolicy, RouteCommands } from './core/route-types.js'
export type { PullRequestHost, PullRequestWhere, PullFacts, HostFile, CommentRef, Commenter, Reaction, RepoPermission } from './core/code-host-types.js'
export type { StateBackend } from './core/jobs/lifecycle/state-backend.js'
export { integer, boolean, text, textList, nonBlank, idText } from './core/config/schema-kit.js'
export {
  /** valibot, the schema library of plugin options: the same copy the gateway validates with. */
  v,
}
export { GatewayError, ConfigError, ListenError, DeliveryError, type GatewayErrorCode, type ConfigIssue } from './core/errors.js'
export { createLogger, silentLogger } from './core/log/logger.js'
export type { LoggerOptions } from './core/log/logger-options.js'
