/**
 * Loading and validating `config.yaml`: YAML, then the environment, then the schema, then the checks that span
 * keys. Every problem is reported at once, each with its path.
 */
import { readFile } from 'node:fs/promises'
import * as v from 'valibot'
import { parseDocument } from 'yaml'
import { applyEnvOverrides, interpolateEnv, isRecord, type Env } from './config-env.js'
import { configSchema, routeSchema, type HookpilotConfig, type HookpilotConfigInput } from './config-schema.js'
import { ConfigError, GatewayError, type ConfigIssue } from './errors.js'
import { reservedRouteIssues } from './reserved-names.js'
import { resolveRoute, type RouteDefaults } from './routes.js'
import type { Route } from './types.js'

export type { HookpilotConfig, HookpilotConfigInput, RouteConfig, AgentConfig, StateConfig } from './config-schema.js'

const PARSED = Symbol.for('hookpilot.parsedConfig')
const ROUTES_PATH = 'platforms.webhook.extra.routes'

/** Options of {@link parseConfig} and {@link loadConfig}. */
export interface ParseConfigOptions {
  /** Where `${VAR}` and the `WEBHOOK_*` overrides are read; defaults to `process.env`. */
  readonly env?: Env | undefined
  /** Named in error messages (the file path). */
  readonly source?: string | undefined
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
  const issues: ConfigIssue[] = []
  const raw = interpolateEnv(applyEnvOverrides(input, env), env, issues)
  // Before the schema, whose records drop such keys without a word.
  issues.push(...reservedRouteIssues(routesOf(raw), ROUTES_PATH))
  const result = v.safeParse(configSchema, raw)
  if (result.success) {
    staticRoutes(result.output, issues)
  } else {
    for (const issue of result.issues) {
      const path = v.getDotPath(issue) ?? ''
      issues.push({ path, message: describe(issue, isSecretPath(path)) })
    }
    routeIssuesOfInvalidConfig(raw, issues)
  }
  if (issues.length > 0 || !result.success) throw new ConfigError(dedupe(issues), { source: options.source })
  Object.defineProperty(result.output, PARSED, { value: true })
  return result.output
}

/**
 * Reads, interpolates and validates a YAML configuration file.
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
    const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(cause)
    throw new GatewayError('ERR_CONFIG', `Cannot read the configuration ${path}: ${reason}. Pass --config FILE.`, { cause })
  }
  const doc = parseDocument(text, { prettyErrors: true })
  if (doc.errors.length > 0) {
    const issues = doc.errors.map((e) => ({ path: '', message: `YAML: ${e.message.split('\n')[0] ?? e.message}` }))
    throw new ConfigError(issues, { source: path, cause: doc.errors[0] })
  }
  return parseConfig((doc.toJS() ?? {}) as HookpilotConfigInput, { ...options, source: options.source ?? path })
}

/** The defaults every route inherits from `platforms.webhook.extra`. */
export function routeDefaults(config: HookpilotConfig): RouteDefaults {
  const extra = config.platforms.webhook.extra
  return { host: extra.host, secret: extra.secret, rateLimit: extra.rate_limit }
}

/** The routes of config.yaml, resolved; problems go to `issues`. */
export function staticRoutes(config: HookpilotConfig, issues: ConfigIssue[] = []): Route[] {
  const defaults = routeDefaults(config)
  const routes: Route[] = []
  for (const [name, route] of Object.entries(config.platforms.webhook.extra.routes)) {
    const resolved = resolveRoute(name, route, defaults, 'static', `${ROUTES_PATH}.${name}`, issues)
    if (resolved) routes.push(resolved)
  }
  return routes
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
    if (route.success) resolveRoute(name, route.output, defaults, 'static', `${ROUTES_PATH}.${name}`, issues)
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

/**
 * One issue in words. valibot's own messages ("Invalid type: Expected Array but received ...") are rewritten
 * shorter; the schema's messages ("expected a list of strings") are kept, and a wrong type says what it got.
 */
function describe(issue: v.BaseIssue<unknown>, secret: boolean): string {
  if (issue.expected === 'never') return 'unknown key (check its spelling against docs/configuration.md)'
  // A secret written as a YAML number is still a secret: say what it is, never what it was.
  const got = secret ? `${kindOf(issue.input)} (write secrets in quotes)` : issue.received
  const own = !issue.message.startsWith('Invalid ')
  if (issue.kind === 'schema' && issue.expected) {
    if (own) return `${issue.message}, got ${got}`
    if (issue.type !== 'union') return `expected ${issue.expected}, got ${got}`
  }
  return secret ? `${issue.message.replace(/ but received .*$/, '')}, got ${got}` : issue.message
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list holding something else'
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** Keys whose values are secrets: `secret`, `token`, `api_key`, `auth_token`, ... (and the items of a list of them). */
function isSecretPath(path: string): boolean {
  return path.split('.').some((key) => /secret|token|key|password/i.test(key))
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
