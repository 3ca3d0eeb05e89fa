/**
 * What the subscription commands (subscribe, list, remove, test, send) share: the common flags, loading the
 * config and locating its subscriptions file, checking a route name, and the URLs of a route.
 */
import { dirname, isAbsolute, resolve } from 'node:path'
import * as v from 'valibot'
import type { HookpilotConfig } from '../core/config/schema.js'
import { routeName } from '../core/config/schema.js'
import { resolveSubscription, type SubscriptionStore } from '../core/routes/subscriptions/index.js'
import { openSubscriptions } from './state-access.js'
import type { DeliveryTarget, Route } from '../core/types.js'
import { compose } from '../core/gateway/compose.js'
import { createSecretSet } from '../core/secrets/secret-set.js'
import { silentLogger } from '../core/log/logger.js'
import { loadConfig } from '../index.js'
import { BUILTIN_PLUGINS } from '../plugins/builtins.js'
import { UsageError } from './args.js'
import { readListening } from './listening.js'
import type { CliIO } from './io.js'

/** `--config` and `--help`, which every subscription command takes. */
export const COMMON_OPTIONS = {
  config: { type: 'string', short: 'c', default: 'config.yaml' },
  help: { type: 'boolean', short: 'h' },
} as const

/** The help text's lines for {@link COMMON_OPTIONS}. */
export const COMMON_HELP = `  -c, --config FILE   configuration file (default: ./config.yaml); subscriptions live beside it
  -h, --help          show this help`

/** A loaded configuration and where its subscriptions are kept. */
export interface CliContext {
  readonly config: HookpilotConfig
  readonly configPath: string
  /** The subscriptions: the file beside the config, or the shared state backend's (Redis). */
  readonly store: SubscriptionStore
  /** Names of the routes in config.yaml. */
  readonly staticNames: ReadonlySet<string>
}

/**
 * Loads the configuration (paths relative to the command's working directory), opens its subscriptions, runs
 * `command` and closes them. An unset `${VAR}` is left as written: these commands never use the secrets it
 * would hold (`send` checks the one it signs with); the state's own (a Redis URL) must be set to reach it.
 */
export async function withContext<T>(configArg: string, io: CliIO, command: (ctx: CliContext) => Promise<T>): Promise<T> {
  const configPath = isAbsolute(configArg) ? configArg : resolve(io.cwd, configArg)
  const config = await loadConfig(configPath, { env: io.env, lenientEnv: true })
  const staticNames = new Set(Object.keys(config.platforms.webhook.extra.routes))
  const { store, close } = await openSubscriptions(config, dirname(configPath))
  try {
    return await command({ config, configPath, store, staticNames })
  } finally {
    await close()
  }
}

/** The one positional argument, a route name, checked; a {@link UsageError} names the problem. */
export function oneName(positionals: readonly string[], command: string, what = 'name'): string {
  if (positionals.length !== 1) {
    const got = positionals.length === 0 ? `no ${what}` : `${positionals.length} arguments (${positionals.join(' ')})`
    throw new UsageError(`expected one ${what}, got ${got}.\nRun "hookpilot ${command} --help" for usage.`)
  }
  const name = positionals[0] ?? ''
  const checked = v.safeParse(routeName, name)
  if (!checked.success) throw new UsageError(`"${name}" is not a valid ${what}: ${checked.issues[0]?.message ?? 'invalid'}.`)
  return name
}

/** A comma-separated list flag as trimmed, non-empty items. */
export function splitList(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(',').map((s) => s.trim()).filter((s) => s !== '')
}

/**
 * The URL a person pastes into GitHub: `localhost` stands for a wildcard bind. The port is the one a running
 * `serve` of this config really listens on (`--port`, `WEBHOOK_PORT`), else the config's.
 */
export function publicUrl(config: HookpilotConfig, name: string, configPath?: string): string {
  const live = configPath === undefined ? undefined : readListening(configPath)
  const { host, port } = live ?? config.platforms.webhook.extra
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host
  return `http://${bracket(shown)}:${port}/webhooks/${name}`
}

/**
 * Where a local command reaches the gateway: `--url` if given, else the configured host and port, with a
 * wildcard bind reached on the loopback address of its family (`localhost` may resolve to the other family).
 */
export function localBaseUrl(config: HookpilotConfig, override: string | undefined, configPath?: string): string {
  if (override !== undefined) {
    if (!/^https?:\/\/[^/]+/.test(override)) throw new UsageError(`--url takes a base URL such as http://127.0.0.1:8644, not "${override}".`)
    return override.replace(/\/+$/, '')
  }
  const live = configPath === undefined ? undefined : readListening(configPath)
  const { host, port } = live ?? config.platforms.webhook.extra
  const reach = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${bracket(reach)}:${port}`
}

function bracket(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

/** A subscription looked up for sending: its route, none of that name, or why it cannot be used. */
export type FoundSubscription =
  | { readonly kind: 'found'; readonly route: Route }
  | { readonly kind: 'missing' }
  | { readonly kind: 'error'; readonly message: string }

/** Looks a dynamic subscription up by name and resolves it as the gateway would (static clashes aside). */
export async function findSubscription(ctx: CliContext, name: string): Promise<FoundSubscription> {
  const read = await ctx.store.read()
  if (read.status === 'invalid') return { kind: 'error', message: `The subscriptions in ${ctx.store.where} are invalid: ${read.reason}` }
  const raw = read.status === 'ok' && Object.hasOwn(read.file.subscriptions, name) ? read.file.subscriptions[name] : undefined
  if (raw === undefined) return { kind: 'missing' }
  const route = resolveSubscription(name, raw, { config: ctx.config, staticNames: new Set() })
  return 'reason' in route ? { kind: 'error', message: `Subscription "${name}" cannot be used: ${route.reason}` } : { kind: 'found', route }
}

/** What `hookpilot serve` can deliver to: its targets by name and alias, and how to enable the disabled ones. */
export interface ServedTargets {
  readonly targets: ReadonlyMap<string, DeliveryTarget>
  readonly hints: ReadonlyMap<string, string>
}

/**
 * The delivery targets `hookpilot serve` would have with this config (the built-ins and its `plugins:`), to tell
 * which subscriptions it would skip. Undefined when the config cannot compose them (serve reports that itself).
 */
export async function servedTargets(ctx: CliContext): Promise<ServedTargets | undefined> {
  const composed = await compose(ctx.config, { definitions: BUILTIN_PLUGINS, plugins: [] }, {
    baseDir: dirname(ctx.configPath), log: silentLogger, secrets: createSecretSet(), routes: [], role: 'admin',
  }).catch(() => undefined)
  if (!composed) return undefined
  await composed.scope.dispose()
  return { targets: composed.slots.targets, hints: composed.setUp.hints }
}
