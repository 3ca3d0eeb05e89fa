/**
 * A chat platform as a plugin: its block at `platforms.<name>` holds `enabled`, `home_channel`, `api_base`,
 * `timeout_seconds` and its credentials; the target exists only while `enabled` is true, and a route that
 * names a disabled platform is told to enable it.
 */
import * as v from 'valibot'
import { defineConfiguredPlugin, type PluginDefinition } from '../../../core/plugin-api/definition.js'
import { boolean, idText, integer, text } from '../../../core/config/schema-kit.js'
import type { DeliveryTarget } from '../../../core/types.js'

/** The keys every chat block has, as the platform's constructor takes them. */
export interface ChatCommon {
  readonly homeChannel: string | undefined
  readonly apiBase: string | undefined
  readonly timeoutMs: number
}

/** The keys every chat block has, as validated. */
interface ChatBlock {
  readonly enabled: boolean
  readonly home_channel?: string | undefined
  readonly api_base?: string | undefined
  readonly timeout_seconds: number
}

/** What differs between chat platforms. */
export interface ChatPluginSpec<E extends v.ObjectEntries> {
  readonly name: string
  readonly aliases: readonly string[]
  /** The platform's own keys (credentials). */
  readonly entries: E
  /** Which of them are secrets. */
  readonly secrets: readonly (keyof E & string)[]
  /** Builds the target (loading its module only when the platform is enabled). */
  make(options: v.InferOutput<v.ObjectSchema<E, undefined>>, common: ChatCommon): Promise<DeliveryTarget>
}

/** Defines a chat platform's plugin. */
export function chatPlugin<E extends v.ObjectEntries>(spec: ChatPluginSpec<E>): PluginDefinition {
  // Widened: the platform's entries are generic here, so its secret keys are checked where each platform names them.
  const schema: v.GenericSchema<unknown, Record<string, unknown>> = v.object({
    enabled: v.optional(boolean, false),
    home_channel: v.optional(idText),
    api_base: v.optional(text),
    timeout_seconds: v.optional(integer(1, 600), 30),
    ...spec.entries,
  })
  return defineConfiguredPlugin({
    name: spec.name,
    section: `platforms.${spec.name}`,
    targets: [spec.name, ...spec.aliases],
    enableHint: `platforms.${spec.name} is not enabled: set platforms.${spec.name}.enabled: true and its credentials`,
    secrets: spec.secrets,
    options: schema,
    async setup(raw) {
      const options = raw as ChatBlock & v.InferOutput<v.ObjectSchema<E, undefined>>
      if (!options.enabled) return { name: spec.name }
      const common: ChatCommon = { homeChannel: options.home_channel, apiBase: options.api_base, timeoutMs: options.timeout_seconds * 1000 }
      const target = await spec.make(options, common)
      return { name: spec.name, deliveryTargets: [{ ...target, aliases: spec.aliases }] }
    },
  })
}
