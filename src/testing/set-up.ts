/**
 * A plugin definition set up the way a gateway sets it up, for its own tests: its options validated by its
 * schema (a ConfigError with their paths when they are wrong), then `setup` with a context of a test's own.
 */
import { ConfigError, type ConfigIssue } from '../core/errors.js'
import { compose } from '../core/gateway/compose.js'
import { silentLogger } from '../core/log/logger.js'
import { validateOptions } from '../core/plugin-api/sections.js'
import { secretValues } from '../core/plugin-api/setup.js'
import { createSecretSet, type SecretEnv, type SecretSet } from '../core/secrets/secret-set.js'
import type { GatewayPlugin } from '../core/plugin-api/gateway-plugin.js'
import type { PluginDefinition } from '../core/plugin-api/definition.js'
import { parseConfig } from '../core/plugin-api/load-config.js'
import type { Logger } from '../core/types.js'

/** Options of {@link setUpPlugin}. */
export interface SetUpPluginOptions {
  /** Where relative paths are resolved (`ctx.baseDir`); the working directory by default. */
  readonly baseDir?: string | undefined
  readonly log?: Logger | undefined
  /** The environment `ctx.childEnv` is made from (less the plugin's secrets); `process.env` by default. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
}

/**
 * The options as the gateway validates them (the same function: unknown keys with a "did you mean", the
 * schema's defaults, the same messages), with paths relative to the options. Throws a ConfigError.
 */
function validOptions<O>(definition: PluginDefinition<O>, options: unknown): O {
  const issues: ConfigIssue[] = []
  const valid = validateOptions(definition, options, '', issues)
  if (issues.length > 0) throw new ConfigError(issues, { source: `the options of plugin "${definition.name}"` })
  return valid as O
}

/** The plugin's secret values, known as the gateway knows them: redacted, and kept from `childEnv`. */
function secretsOf<O>(definition: PluginDefinition<O>, options: O, env: SecretEnv): SecretSet {
  const secrets = createSecretSet({ env })
  secrets.set('plugin', secretValues(definition, options))
  return secrets
}

/**
 * Validates `options` as the gateway validates a plugin's section (a ConfigError listing every problem, its
 * schema's defaults filled in) and runs its `setup` with a test's own context, whose `childEnv` holds no
 * variable carrying one of the plugin's secret options and whose `redact` removes them.
 *
 * @example
 * ```ts
 * const plugin = await setUpPlugin(audit, { file: 'audit.jsonl', token: 'x'.repeat(16) }, { baseDir: dir })
 * const target = plugin.deliveryTargets?.[0]
 * ```
 */
export async function setUpPlugin<O>(definition: PluginDefinition<O>, options: unknown, setup: SetUpPluginOptions = {}): Promise<GatewayPlugin & { deliveryTargets: NonNullable<GatewayPlugin['deliveryTargets']> }> {
  const valid = validOptions(definition, options)
  const secrets = secretsOf(definition, valid, setup.env ?? process.env)
  const config = parseConfig({}, { env: {} })
  // Set up through the gateway's own composition root (as an admin open: no runner, route or folder checks),
  // so the context is the one a gateway gives: its resources, its logger and clock slots, its child env.
  const own: PluginDefinition = { ...definition, section: undefined, selectedBy: undefined, options: undefined, secrets: [], setup: (_none, ctx) => definition.setup(valid, ctx) }
  const baseDir = setup.baseDir ?? process.cwd()
  const composed = await compose(config, { definitions: [own], plugins: [] }, { baseDir, log: setup.log ?? silentLogger, secrets, routes: [], role: 'admin' })
  const plugin = composed.plugins.at(-1) ?? { name: definition.name }
  return { ...plugin, deliveryTargets: plugin.deliveryTargets ?? [] }
}
