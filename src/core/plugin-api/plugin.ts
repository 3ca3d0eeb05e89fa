/**
 * `definePlugin`, the one form every plugin takes. What a plugin contributes (the value its `setup` returns) is
 * `GatewayPlugin`, in gateway-plugin.ts; the definition's shape is definition.ts's.
 */
import type * as v from 'valibot'
import { defineConfiguredPlugin, type PluginDefinition, type PluginSpec } from './definition.js'

/**
 * Declares a plugin, the one form every plugin takes (the built-ins too): its options (a valibot schema,
 * validated with the core's paths and "did you mean"), its secret options, and `setup(options, ctx)` that
 * returns what it contributes (a `GatewayPlugin`). Pass it to `createGateway`, or export it as the default
 * of a module that `plugins:` in config.yaml lists. A secret that names no option of the schema fails to
 * compile, and throws here. A plugin with nothing to configure leaves `options` out.
 *
 * @example
 * ```ts
 * import { definePlugin, v } from 'hookpilot'
 * export default definePlugin({
 *   name: 'audit',
 *   options: v.object({ file: v.string(), token: v.optional(v.string()) }),
 *   secrets: ['token'],                 // keys of the options: ['tokn'] does not compile
 *   setup: (options) => ({ name: 'audit', deliveryTargets: [auditTarget(options.file)] }),
 * })
 * ```
 * @example
 * ```ts
 * // Nothing to configure: setup returns what the plugin holds.
 * export const quiet = definePlugin({ name: 'quiet', setup: () => ({ name: 'quiet', eventFilters: [noDrafts] }) })
 * ```
 */
export function definePlugin<S extends v.GenericSchema = v.GenericSchema<unknown, Record<string, unknown>>>(spec: PluginSpec<S>): PluginDefinition<v.InferOutput<S>> {
  return defineConfiguredPlugin(spec)
}
