/**
 * A plugin as a package defines it: a name, its own configuration (a valibot schema, validated with the same
 * paths and "did you mean" as the core's), which of its options are secrets, and a `setup` that turns options
 * into what it contributes. The built-ins are defined this way too, so the core names none of them.
 */
import type * as v from 'valibot'
import type { HookpilotConfig } from '../config/schema.js'
import type { GatewayPlugin } from './plugin.js'
import type { Logger } from '../types.js'

const PLUGIN = Symbol.for('hookpilot.pluginDefinition')

/** Resources a gateway's plugins share (one database connection for a backend's queue, store and subscriptions). */
export interface Resources {
  /**
   * The resource named `key`: created by `create` the first time any plugin of this gateway asks, the same
   * object afterwards; `dispose` runs when the gateway closes. Two gateways never share one.
   */
  get<T>(key: string, create: () => T, dispose?: (value: T) => void | Promise<void>): T
}

/** What `setup` receives besides its options. */
export interface SetupContext {
  /** The whole validated configuration (its core keys: agent bounds, state, webhook routes). */
  readonly config: HookpilotConfig
  /** Where relative paths are resolved: the config file's folder. */
  readonly baseDir: string
  /** The environment for programs a plugin runs: the gateway's own, less every variable holding a known secret. */
  readonly childEnv: NodeJS.ProcessEnv
  readonly resources: Resources
  readonly log: Logger
  /** The working directory for programs a plugin runs: a folder of their own, never the gateway's. */
  readonly workdir: string
  /** Removes every secret the gateway knows from a text (for what a plugin logs, stores or posts). */
  readonly redact: (text: string) => string
}

/** When a plugin is chosen by a key of its section (`agent.runner: command`, `state.driver: sqlite`). */
export interface Selector {
  readonly key: string
  readonly value: string
}

/** A defined plugin: what `definePlugin` returns and what a module listed under `plugins:` exports. */
export interface PluginDefinition<O = unknown> {
  readonly [PLUGIN]: true
  readonly name: string
  /**
   * Where its options are in config.yaml (dotted, e.g. `platforms.teams`) when `plugins:` gives no `with:`.
   * Undefined: only `with:` (or nothing).
   */
  readonly section: string | undefined
  /** Set up only when this key of the section has this value; its keys are still known (not typos) otherwise. */
  readonly selectedBy: Selector | undefined
  readonly options: v.GenericSchema<unknown, O> | undefined
  /** Dotted paths of options that are secrets: redacted from logs and kept from child processes. */
  readonly secrets: readonly string[]
  /** Delivery target names (aliases included) it can provide, so a route naming one is told how to enable it. */
  readonly targets: readonly string[]
  /** What to do when a route names one of `targets` and setup provided none (e.g. `set platforms.telegram.enabled: true`). */
  readonly enableHint: string | undefined
  setup(options: O, ctx: SetupContext): GatewayPlugin | Promise<GatewayPlugin>
}

/** What {@link defineConfiguredPlugin} takes. */
export interface PluginSpec<S extends v.GenericSchema> {
  readonly name: string
  readonly section?: string | undefined
  readonly selectedBy?: Selector | undefined
  readonly options?: S | undefined
  readonly secrets?: readonly string[] | undefined
  readonly targets?: readonly string[] | undefined
  readonly enableHint?: string | undefined
  setup(options: v.InferOutput<S>, ctx: SetupContext): GatewayPlugin | Promise<GatewayPlugin>
}

/** Builds a {@link PluginDefinition} (see `definePlugin`). */
export function defineConfiguredPlugin<S extends v.GenericSchema>(spec: PluginSpec<S>): PluginDefinition<v.InferOutput<S>> {
  return {
    [PLUGIN]: true,
    name: spec.name,
    section: spec.section,
    selectedBy: spec.selectedBy,
    options: spec.options,
    secrets: spec.secrets ?? [],
    targets: spec.targets ?? [],
    enableHint: spec.enableHint,
    setup: spec.setup,
  }
}

/** True for a plugin definition from any copy of this package. */
export function isPluginDefinition(value: unknown): value is PluginDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PLUGIN] === true
}
