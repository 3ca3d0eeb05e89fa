/**
 * Loading and validating `config.yaml`: YAML, then the environment, then the core's schema, then each plugin's
 * own section with the plugin's schema, then the checks that span keys. Every problem is reported at once,
 * each with its path, and every unknown key with a "did you mean". It lives in plugin-api/, not config/: the whole
 * config is validated with the plugins' sections (and their modules loaded), and config/ comes before plugin-api/
 * in the order of src/core's folders (config/ says only what the core's part of a valid config.yaml is).
 */
import { readFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import * as v from 'valibot'
import { parseDocument } from 'yaml'
import { applyEnvOverrides, interpolateEnv, isRecord, overriddenPaths, type Env } from '../config/env.js'
import { knownKeys, unknownKeys } from '../config/keys.js'
import { salvage, type Salvaged } from '../config/salvage.js'
import { agentSchema, configSchema, routeSchema, stateSchema, type HookpilotConfig, type HookpilotConfigInput } from '../config/schema.js'
import { ConfigError, GatewayError, messageOf, type ConfigIssue } from '../errors.js'
import { at, claimsOf, describeIssue, isSelected, validateOptions, type Claims } from './sections.js'
import type { PluginDefinition } from './definition.js'
import { loadPluginModules } from './loader.js'
import { reservedRouteIssues } from '../config/reserved-names.js'
import { resolveRoute, type RouteDefaults } from '../routes/routes.js'
import { STATIC_ROUTES_PATH, staticRoutes } from '../routes/static-routes.js'

const PARSED = Symbol.for('hookpilot.parsedConfig')
const LOADED = Symbol.for('hookpilot.loadedPlugins')
const SOURCE = Symbol('hookpilot.configSource')
const PARTIAL = Symbol('hookpilot.partialConfig')

/** Sections the core shares with plugins, with the keys the core owns there and the defaults of its selectors. */
const SHARED: Readonly<Record<string, { readonly keys: readonly string[]; readonly defaults: Readonly<Record<string, string>> }>> = {
  agent: { keys: knownKeys(agentSchema) ?? [], defaults: { runner: 'echo' } },
  state: { keys: knownKeys(stateSchema) ?? [], defaults: { driver: 'sqlite' } },
}

/** Options of {@link parseConfig} and {@link loadConfig}. */
export interface ParseConfigOptions {
  /** Where `${VAR}` and the `WEBHOOK_*` overrides are read; defaults to `process.env`. */
  readonly env?: Env | undefined
  /** Named in error messages (the file path). */
  readonly source?: string | undefined
  /** The plugins whose sections the configuration may hold (`createGateway` passes the built-ins). */
  readonly definitions?: readonly PluginDefinition[] | undefined
  /** The definitions of the `plugins:` entries, in order (loaded by {@link loadConfig}). */
  readonly loaded?: readonly PluginDefinition[] | undefined
  /**
   * Leave an unset `${VAR}` as written instead of refusing it: for commands that never use those values
   * (`hookpilot list`, `subscribe`, `jobs`). `serve` is always strict.
   */
  readonly lenientEnv?: boolean | undefined
  /**
   * How to name an override in an error about its value, by variable (`serve` passes `--port` for
   * `WEBHOOK_PORT` when the flag set it): the problem is then not blamed on the file.
   */
  readonly overrideNames?: Readonly<Record<string, string>> | undefined
}

/**
 * Validates a configuration given as a plain object (the shape of config.yaml), interpolating `${VAR}` and
 * applying the `WEBHOOK_*` overrides. Throws a {@link ConfigError} listing every problem.
 *
 * @example
 * ```ts
 * const config = parseConfig({ platforms: { webhook: { extra: { secret: '${WEBHOOK_SECRET}', routes: { pr: {} } } } } })
 * ```
 */
export function parseConfig(input: HookpilotConfigInput | HookpilotConfig, options: ParseConfigOptions = {}): HookpilotConfig {
  if (isParsedConfig(input)) return input
  const env = options.env ?? process.env
  const { output, issues } = validate(input, options)
  if (output) return output
  const error = new ConfigError(blameOverrides(dedupe(issues), env, options.overrideNames), { source: options.source })
  // What still holds once the wrong parts are taken out: the checks that need the plugins run on it, so one
  // run reports those problems too (a mistyped target beside an unknown key).
  Object.defineProperty(error, PARTIAL, { value: salvage(input, env, (raw) => validate(raw, { ...options, env: {}, lenientEnv: true })) })
  throw error
}

/** Validates; the output (marked parsed) when there is no issue, else every issue. */
function validate(input: unknown, options: ParseConfigOptions): { output?: HookpilotConfig; issues: ConfigIssue[] } {
  const env = options.env ?? process.env
  const issues: ConfigIssue[] = []
  const raw = interpolateEnv(applyEnvOverrides(input, env), env, options.lenientEnv ? undefined : issues)
  const definitions = options.definitions ?? []
  const loaded = options.loaded ?? []
  // Before the schema, whose records drop such keys without a word.
  issues.push(...reservedRouteIssues(routesOf(raw), STATIC_ROUTES_PATH))
  const result = v.safeParse(configSchema, raw)
  unknownCoreKeys(raw, claimsOf([...definitions, ...loaded], (path) => SHARED[path]?.keys), issues)
  if (result.success) {
    staticRoutes(result.output, issues)
  } else {
    // Unknown keys were reported by the walk, every one with a suggestion; a strict object's "never" repeats the first.
    for (const issue of result.issues.filter((i) => i.expected !== 'never')) {
      const path = v.getDotPath(issue) ?? ''
      // A secret YAML read as a number: the value is never echoed, and quoting it is the fix.
      const hint = isSecretPath(path) && typeof issue.input === 'number' ? ' (write secrets in quotes)' : ''
      issues.push({ path, message: describeIssue(issue) + hint })
    }
    routeIssuesOfInvalidConfig(raw, issues)
  }
  const output = result.success ? result.output : undefined
  for (const def of definitions) sectionOptions(def, raw, output, issues)
  pluginEntryOptions(raw, loaded, output, issues)
  if (issues.length > 0 || !output) return { issues }
  Object.defineProperty(output, PARSED, { value: true })
  Object.defineProperty(output, LOADED, { value: loaded })
  Object.defineProperty(output, SOURCE, { value: options.source })
  return { output, issues }
}

/**
 * The part of an invalid configuration that is still valid (see {@link salvage}), from the ConfigError
 * {@link parseConfig} threw; undefined for any other error, or when nothing could be kept.
 */
export function partialConfig(error: unknown): Salvaged | undefined {
  return typeof error === 'object' && error !== null ? ((error as Record<symbol, unknown>)[PARTIAL] as Salvaged | undefined) : undefined
}

/** The file a parsed configuration was read from (named in the problems found later, when it is composed). */
export function configSource(config: HookpilotConfig): string | undefined {
  return (config as unknown as Record<symbol, unknown>)[SOURCE] as string | undefined
}

/**
 * Reads, interpolates and validates a YAML configuration file, loading the modules its `plugins:` lists
 * (paths relative to the file's folder, or package names).
 *
 * @example
 * ```ts
 * const gateway = await createGateway(await loadConfig('config.yaml'))
 * ```
 */
export async function loadConfig(path: string, options: ParseConfigOptions = {}): Promise<HookpilotConfig> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (cause) {
    throw new GatewayError('ERR_CONFIG', unreadableConfig(path, cause), { cause })
  }
  const doc = parseDocument(text, { prettyErrors: true })
  if (doc.errors.length > 0) {
    // The first line of yaml's pretty message ends in "at line 5, column 1:" before a quote of the file, which
    // is left out (a config line may hold a secret): the colon with nothing after it goes too.
    const issues = doc.errors.map((e) => ({ path: '', message: `YAML: ${(e.message.split('\n')[0] ?? e.message).replace(/:\s*$/, '')}` }))
    throw new ConfigError(issues, { source: path, cause: doc.errors[0] })
  }
  const raw = (doc.toJS() ?? {}) as HookpilotConfigInput
  const source = options.source ?? path
  const loaded = await loadPluginModules(isRecord(raw) ? raw['plugins'] : undefined, dirname(resolve(path)), source)
  return parseConfig(raw, { ...options, source, loaded })
}

/** Why the configuration at `path` cannot be read, in words that say where it was looked for and what to pass. */
function unreadableConfig(path: string, cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return `Cannot read the configuration ${path}: no such file in ${dirname(resolve(path))}. Pass --config FILE.`
  if (code === 'EISDIR') return `Cannot read the configuration ${path}: it is a folder, not a file. Pass the file inside it, e.g. --config ${join(path, 'config.yaml')}.`
  return `Cannot read the configuration ${path}: ${messageOf(cause)}. Pass --config FILE.`
}

/**
 * Validates a plain-object configuration, loading the modules its `plugins:` lists from `baseDir` first
 * (what `createGateway` does with a configuration that is not parsed yet).
 */
export async function resolveConfig(input: HookpilotConfigInput | HookpilotConfig, baseDir: string, options: ParseConfigOptions = {}): Promise<HookpilotConfig> {
  if (isParsedConfig(input)) return input
  const loaded = await loadPluginModules(isRecord(input) ? input['plugins'] : undefined, baseDir, options.source)
  return parseConfig(input, { ...options, loaded })
}

/** The plugin definitions of a parsed configuration's `plugins:` entries, in order. */
export function loadedPlugins(config: HookpilotConfig): readonly PluginDefinition[] {
  return ((config as unknown as Record<symbol, unknown>)[LOADED] as readonly PluginDefinition[] | undefined) ?? []
}

/** Every unknown key of the core's part, where no plugin claims it. */
function unknownCoreKeys(raw: unknown, claims: Claims, issues: ConfigIssue[]): void {
  unknownKeys(configSchema, raw, '', issues, (path) => [...(claims.get(path) ?? [])])
}

/** Validates a plugin's section (when it is the chosen one of a shared section) and merges it into `output`. */
function sectionOptions(def: PluginDefinition, raw: unknown, output: Record<string, unknown> | undefined, issues: ConfigIssue[]): void {
  if (def.section === undefined) return
  const shared = SHARED[def.section]
  const sectionRaw = at(raw, def.section)
  const selector = def.selectedBy?.key
  if (!isSelected(def, sectionRaw, selector === undefined ? undefined : shared?.defaults[selector])) return
  const options = validateOptions(def, sectionRaw, def.section, issues, shared?.keys)
  if (output === undefined || options === undefined) return
  setAt(output, def.section, shared ? { ...(at(output, def.section) as object), ...(options as object) } : options)
}

/** Validates each `plugins:` entry's options (its `with:`, else its section) with its plugin's schema. */
function pluginEntryOptions(raw: unknown, loaded: readonly PluginDefinition[], output: Record<string, unknown> | undefined, issues: ConfigIssue[]): void {
  const entries = isRecord(raw) && Array.isArray(raw['plugins']) ? (raw['plugins'] as unknown[]) : []
  entries.forEach((entry, i) => {
    const def = loaded[i]
    if (!def) {
      issues.push({ path: `plugins[${i}].use`, message: 'not loaded: parseConfig does not load modules; use loadConfig() or createGateway(), which do' })
      return
    }
    const given = isRecord(entry) ? entry['with'] : undefined
    const inSection = def.section === undefined ? undefined : at(raw, def.section)
    if (given !== undefined && inSection !== undefined) {
      issues.push({ path: `plugins[${i}].with`, message: `plugin "${def.name}" also has options at ${def.section}: give them in one place` })
      return
    }
    const options = validateOptions(def, given ?? inSection, given !== undefined || def.section === undefined ? `plugins[${i}].with` : def.section, issues)
    const list = output?.['plugins']
    if (options !== undefined && Array.isArray(list) && isRecord(list[i])) list[i] = { ...list[i], with: options }
  })
}

/** An issue about a value the environment (or a flag) put there says so: the file did not. */
function blameOverrides(issues: ConfigIssue[], env: Env, names: Readonly<Record<string, string>> = {}): ConfigIssue[] {
  const overridden = overriddenPaths(env)
  return issues.map((issue) => {
    const variable = overridden.get(issue.path)
    return variable === undefined ? issue : { ...issue, message: `${issue.message} (this value came from ${names[variable] ?? variable}, not from the file)` }
  })
}

function setAt(root: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.')
  let current = root
  for (const key of keys.slice(0, -1)) {
    const next = current[key]
    if (!isRecord(next)) current[key] = {}
    current = current[key] as Record<string, unknown>
  }
  current[keys.at(-1) ?? ''] = value
}

/**
 * When the schema fails elsewhere, still check the routes that parse on their own (a missing secret is worth
 * reporting in the same run as a typo in the port).
 */
function routeIssuesOfInvalidConfig(raw: unknown, issues: ConfigIssue[]): void {
  const extra = v.safeParse(looseExtra, raw)
  if (!extra.success) return
  const { host, secret, routes } = extra.output.platforms.webhook.extra
  const defaults: RouteDefaults = { host: host ?? '0.0.0.0', secret, rateLimit: 30 }
  for (const [name, value] of Object.entries(routes ?? {})) {
    const route = v.safeParse(routeSchema, value)
    if (route.success) resolveRoute(name, route.output, defaults, 'static', `${STATIC_ROUTES_PATH}.${name}`, issues)
  }
}

const looseExtra = v.object({
  platforms: v.object({
    webhook: v.object({
      extra: v.object({
        host: v.fallback(v.optional(v.string()), undefined),
        secret: v.fallback(v.optional(v.union([v.string(), v.array(v.string())])), undefined),
        routes: v.fallback(v.optional(v.record(v.string(), v.unknown())), undefined),
      }),
    }),
  }),
})

function routesOf(raw: unknown): unknown {
  const platforms = isRecord(raw) ? raw['platforms'] : undefined
  const webhook = isRecord(platforms) ? platforms['webhook'] : undefined
  const extra = isRecord(webhook) ? webhook['extra'] : undefined
  return isRecord(extra) ? extra['routes'] : undefined
}

function isParsedConfig(value: unknown): value is HookpilotConfig {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PARSED] === true
}

/** Keys whose values are secrets: `secret`, `token`, `api_key`, `auth_token`, ... (and the items of a list of them). */
function isSecretPath(path: string): boolean {
  // `token`, not `tokens`: costs.budgets' `tokens` and `tokens_per_minute` are counts, not credentials.
  return path.split('.').some((key) => /secret|token(?!s)|key|password/i.test(key))
}

function dedupe(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>()
  return issues.filter((i) => {
    const key = `${i.path}\u0000${i.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
