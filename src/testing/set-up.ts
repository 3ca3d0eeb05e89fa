/**
 * A plugin definition set up the way a gateway sets it up, for its own tests: its options validated by its
 * schema (a ConfigError with their paths when they are wrong), then `setup` with a context of a test's own.
 */
import * as v from 'valibot'
import { ConfigError } from '../core/errors.js'
import { createScope } from '../core/gateway/container.js'
import { silentLogger } from '../core/log/logger.js'
import { describeIssue } from '../core/plugin-api/sections.js'
import type { GatewayPlugin } from '../core/plugin-api/plugin.js'
import type { PluginDefinition } from '../core/plugin-api/definition.js'
import { parseConfig } from '../core/config/config.js'
import type { Logger } from '../core/types.js'

/** Options of {@link setUpPlugin}. */
export interface SetUpPluginOptions {
  /** Where relative paths are resolved (`ctx.baseDir`); the working directory by default. */
  readonly baseDir?: string | undefined
  readonly log?: Logger | undefined
}

/**
 * Validates `options` with the plugin's schema and runs its `setup`.
 *
 * @example
 * ```ts
 * const plugin = await setUpPlugin(audit, { file: 'audit.jsonl', token: 'x'.repeat(16) }, { baseDir: dir })
 * const target = plugin.deliveryTargets?.[0]
 * ```
 */
export async function setUpPlugin<O>(definition: PluginDefinition<O>, options: unknown, setup: SetUpPluginOptions = {}): Promise<GatewayPlugin & { deliveryTargets: NonNullable<GatewayPlugin['deliveryTargets']> }> {
  let valid: O = options as O
  if (definition.options) {
    const result = v.safeParse(definition.options, options)
    if (!result.success) throw new ConfigError(result.issues.map((i) => ({ path: v.getDotPath(i) ?? '', message: describeIssue(i) })))
    valid = result.output
  }
  const config = parseConfig({}, { env: {} })
  const plugin = await definition.setup(valid, {
    config, baseDir: setup.baseDir ?? process.cwd(), childEnv: { ...process.env }, resources: createScope().resources, log: setup.log ?? silentLogger, clock: Date.now,
    workdir: setup.baseDir ?? process.cwd(), redact: (text) => text,
  })
  return { ...plugin, deliveryTargets: plugin.deliveryTargets ?? [] }
}
