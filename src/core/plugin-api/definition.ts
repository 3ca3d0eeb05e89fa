/**
 * A plugin as a package defines it: a name, its own configuration (a valibot schema, validated with the same
 * paths and "did you mean" as the core's), which of its options are secrets, and a `setup` that turns options
 * into what it contributes. The built-ins are defined this way too, so the core names none of them.
 */
import type * as v from 'valibot'
import { missingPath } from '../config/keys.js'
import { suggest } from '../../util/suggest.js'
import type { HookpilotConfig } from '../config/schema.js'
import { GatewayError } from '../errors.js'
import type { GatewayPlugin } from './gateway-plugin.js'
import type { AgentSandbox, AgentUser, Clock, Logger } from '../types.js'

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
  /** The gateway's logger: the last plugin's that provides one, else the configuration's; secrets redacted. */
  readonly log: Logger
  /** The gateway's clock: the last plugin's that provides one (a test's fake clock), else the machine's. */
  readonly clock: Clock
  /** The working directory for programs a plugin runs: a folder of their own, never the gateway's. */
  readonly workdir: string
  /** Removes every secret the gateway knows from a text (for what a plugin logs, stores or posts). */
  readonly redact: (text: string) => string
  /**
   * The account the agent and the commands it asks for run as (`agent.user`), already checked; undefined when
   * they run as the gateway's own user. A runner passes it to `runProcess` and gives them its `HOME`.
   */
  readonly agentUser?: AgentUser | undefined
  /**
   * The sandbox the agent and the commands it asks for run in (`agent.sandbox`), already probed; undefined when
   * they run without one. A runner passes it to `runProcess`.
   */
  readonly agentSandbox?: AgentSandbox | undefined
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

/** Values a secret option may hold: a string, or a list of strings (secrets being rotated). */
type SecretValue = string | readonly string[]

/** One step less deep, for {@link SecretPath}'s bounded recursion. */
type Shallower = [never, 0, 1, 2, 3, 4]

/**
 * The dotted paths of an options type (a schema's output) that can hold a secret: each key whose value is a
 * string or a list of strings, and such keys of nested objects (`token`, `auth.password`), four levels deep.
 * Any key is allowed where the type does not say (`unknown`, a record's keys).
 *
 * @example
 * ```ts
 * type Paths = SecretPath<{ file: string; token?: string; auth: { password: string }; retries: number }>
 * // 'file' | 'token' | 'auth.password'
 * ```
 */
export type SecretPath<O, Depth extends number = 4> = [Depth] extends [never]
  ? never
  : O extends readonly unknown[]
    ? never
    : O extends object
      ? { [K in keyof O & string]-?: SecretPathAt<K, O[K], Depth> }[keyof O & string]
      : never

/** The secret paths at key `K`, whose value is `V`. */
type SecretPathAt<K extends string, V, Depth extends number> = unknown extends V
  ? K | `${K}.${string}`
  : NonNullable<V> extends infer N
    ? N extends SecretValue
      ? K
      : N extends readonly unknown[]
        ? never
        : N extends object
          ? `${K}.${SecretPath<N, Shallower[Depth]>}`
          : never
    : never

/** What `definePlugin` (and {@link defineConfiguredPlugin}) takes. */
export interface PluginSpec<S extends v.GenericSchema> {
  /** The plugin's name, in messages and logs (`plugin "audit" takes no options`). */
  readonly name: string
  /** Where its options are in config.yaml (dotted, e.g. `platforms.teams`) when `plugins:` gives no `with:`. */
  readonly section?: string | undefined
  /** Set up only when this key of its section has this value (`agent.runner: my-agent`). */
  readonly selectedBy?: Selector | undefined
  /** Its options: a valibot schema, validated by the gateway with its paths and "did you mean". */
  readonly options?: S | undefined
  /**
   * Which options are secrets: keys of the schema's output (dotted for nested ones), each a string or a list
   * of strings. Their values are redacted from logs and kept from every program the gateway runs. A path that
   * names no option fails to compile, and throws when the plugin is defined.
   */
  readonly secrets?: readonly SecretPath<v.InferOutput<S>>[] | undefined
  /** Delivery target names (aliases included) it can provide, so a route naming one is told how to enable it. */
  readonly targets?: readonly string[] | undefined
  /** What to do when a route names one of `targets` and setup provided none. */
  readonly enableHint?: string | undefined
  /** Turns the validated options into what the plugin contributes; no I/O here (`start()` opens). */
  setup(options: v.InferOutput<S>, ctx: SetupContext): GatewayPlugin | Promise<GatewayPlugin>
}

/**
 * Builds a {@link PluginDefinition} (see `definePlugin`). Throws when `secrets` names an option the schema
 * does not have: a typo there would silently turn the redaction of that secret off.
 */
export function defineConfiguredPlugin<S extends v.GenericSchema>(spec: PluginSpec<S>): PluginDefinition<v.InferOutput<S>> {
  checkSecrets(spec.name, spec.options, spec.secrets ?? [])
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

/** Throws, naming the plugin and the path, for a secret path that names no option of the schema. */
function checkSecrets(name: string, schema: v.GenericSchema | undefined, secrets: readonly string[]): void {
  for (const path of secrets) {
    if (schema === undefined) {
      throw new GatewayError('ERR_PLUGIN', `plugin "${name}": secrets lists "${path}", but the plugin has no options schema; declare it in options (v.object({ ${path.split('.')[0]}: v.string() }))`)
    }
    const miss = missingPath(schema, path)
    if (miss === undefined) continue
    const where = miss.parent === '' ? '' : `${miss.parent}.`
    const close = suggest(miss.key, miss.known)
    const hint = close !== undefined ? `did you mean "${where}${close}"?` : miss.known.length > 0 ? `the options there are: ${miss.known.join(', ')}` : `"${miss.parent}" has no options inside`
    throw new GatewayError('ERR_PLUGIN', `plugin "${name}": secrets lists "${path}", which names no option of its schema; ${hint}`)
  }
}

/** True for a plugin definition from any copy of this package. */
export function isPluginDefinition(value: unknown): value is PluginDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PLUGIN] === true
}
