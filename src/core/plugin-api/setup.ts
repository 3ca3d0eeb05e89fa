/**
 * Turning plugin definitions into what they contribute, for one gateway: each active plugin's options are
 * found (its section, or its `with:`), every option it declares secret is collected (so the child
 * environment and the log redaction know it, even for a plugin that is not active), and `setup` runs with a
 * context of this gateway's own. Problems of every plugin are reported at once.
 */
import { isRecord } from '../config/env.js'
import type { HookpilotConfig } from '../config/schema.js'
import { loadedPlugins } from './load-config.js'
import { ConfigError, GatewayError, type ConfigIssue } from '../errors.js'
import { at, isSelected } from './sections.js'
import type { PluginDefinition, Resources } from './definition.js'
import type { GatewayPlugin } from './gateway-plugin.js'
import type { AgentSandbox, AgentUser, Clock, Logger } from '../types.js'

/** A plugin to set up, with where its options are. */
interface Active {
  readonly def: PluginDefinition
  readonly options: unknown
}

/** What {@link setupPlugins} made. */
export interface SetUp {
  /** In order: the given definitions, then the `plugins:` entries. */
  readonly plugins: GatewayPlugin[]
  /** Every secret value the configuration holds (routes, webhook, plugins' secret options). */
  readonly secrets: string[]
  /** Target names a plugin could provide but did not (a disabled platform), with how to enable them. */
  readonly hints: ReadonlyMap<string, string>
}

/** What the setups share. */
export interface SetupBase {
  readonly baseDir: string
  readonly resources: Resources
  readonly log: Logger
  readonly clock: Clock
  /** The environment children get, given the secrets (the gateway's own, less them). */
  readonly childEnv: (secrets: readonly string[]) => NodeJS.ProcessEnv
  /** The working directory of the programs plugins run. */
  readonly workdir: string
  /** Removes every known secret from a text. */
  readonly redact: (text: string) => string
  /** The account agents run as (`agent.user`), resolved; undefined for the gateway's own. */
  readonly agentUser?: AgentUser | undefined
  /** The sandbox agents run in (`agent.sandbox`); undefined when they run without one. */
  readonly agentSandbox?: AgentSandbox | undefined
}

/** Sets up `definitions` (built-ins first) and the configuration's `plugins:` entries. */
export async function setupPlugins(config: HookpilotConfig, definitions: readonly PluginDefinition[], base: SetupBase): Promise<SetUp> {
  const active: Active[] = []
  const secrets = coreSecrets(config)
  for (const def of definitions) {
    if (def.section === undefined) {
      active.push({ def, options: {} })
      continue
    }
    const options = at(config, def.section) ?? {}
    secrets.push(...secretValues(def, options))
    if (isSelected(def, options, undefined)) active.push({ def, options })
  }
  const loaded = loadedPlugins(config)
  config.plugins.forEach((entry, i) => {
    const def = loaded[i]
    if (!def) return
    const options = entry.with ?? (def.section === undefined ? {} : at(config, def.section)) ?? {}
    secrets.push(...secretValues(def, options))
    active.push({ def, options })
  })
  const ctx = {
    config, baseDir: base.baseDir, childEnv: base.childEnv(secrets), resources: base.resources, log: base.log, clock: base.clock, workdir: base.workdir,
    redact: base.redact, agentUser: base.agentUser, agentSandbox: base.agentSandbox,
  }
  const issues: ConfigIssue[] = []
  const plugins: GatewayPlugin[] = []
  const hints = new Map<string, string>()
  for (const { def, options } of active) {
    let plugin: GatewayPlugin
    try {
      plugin = await def.setup(options, ctx)
    } catch (err) {
      // A plugin may be built against another copy of hookpilot: its errors are recognised by their brand.
      if (ConfigError.is(err)) issues.push(...err.issues)
      else if (GatewayError.is(err)) issues.push({ path: def.section ?? `plugins (${def.name})`, message: err.message })
      else throw err
      continue
    }
    plugins.push(plugin)
    const provided = new Set((plugin.deliveryTargets ?? []).flatMap((t) => [t.name, ...(t.aliases ?? [])]))
    for (const name of def.targets) {
      if (!provided.has(name)) hints.set(name, def.enableHint ?? `plugin "${def.name}" did not provide it`)
    }
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return { plugins, secrets: [...new Set(secrets)], hints }
}

/** The webhook's own secrets: the global ones and every route's. */
function coreSecrets(config: HookpilotConfig): string[] {
  const { extra } = config.platforms.webhook
  const list = (value: string | readonly string[] | undefined) => (value === undefined ? [] : typeof value === 'string' ? [value] : [...value])
  return [...list(extra.secret), ...Object.values(extra.routes).flatMap((route) => list(route.secret))].filter(usable)
}

/** The values of a plugin's secret options (a string or a list of strings each). */
export function secretValues(def: PluginDefinition, options: unknown): string[] {
  if (!isRecord(options)) return []
  return def.secrets.flatMap((path) => {
    const value = at(options, path)
    const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : []
    return values.filter(usable)
  })
}

function usable(secret: string): boolean {
  return secret.trim() !== '' && secret !== 'INSECURE_NO_AUTH'
}
