/**
 * What the environment does to a configuration before it is validated: `${VAR}` / `${VAR:-default}` in any
 * string, and the `WEBHOOK_*` and `LOG_*` overrides, so a deployment sets the port, the host, the secret and the
 * log level and format without editing the file.
 */
import type { ConfigIssue } from '../errors.js'

/** The environment variables the configuration reads. */
export type Env = Readonly<Record<string, string | undefined>>

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string of `raw`. An unset variable without a default is an
 * issue at the string's path (a secret that silently became empty would open a route); without `issues`
 * (commands that never use the values) it stays as written.
 */
export function interpolateEnv(raw: unknown, env: Env, issues: ConfigIssue[] | undefined, path = ''): unknown {
  if (typeof raw === 'string') {
    return raw.replace(PLACEHOLDER, (whole, name: string, fallback: string | undefined) => {
      const value = env[name]
      if (value !== undefined && value !== '') return value
      if (fallback !== undefined) return fallback
      if (issues === undefined) return whole
      issues.push({
        path,
        message: `environment variable ${name} is not set (set it, or write \${${name}:-default} to give a default)`,
      })
      return whole
    })
  }
  if (Array.isArray(raw)) return raw.map((item, i) => interpolateEnv(item, env, issues, join(path, String(i))))
  if (isRecord(raw)) {
    // No prototype: a key named __proto__ (a route) is kept as a key, so it is reported rather than lost.
    const out = Object.create(null) as Record<string, unknown>
    for (const [key, value] of Object.entries(raw)) out[key] = interpolateEnv(value, env, issues, join(path, key))
    return out
  }
  return raw
}

const OVERRIDES: ReadonlyArray<readonly [variable: string, key: 'enabled' | 'host' | 'port' | 'secret']> = [
  ['WEBHOOK_ENABLED', 'enabled'],
  ['WEBHOOK_HOST', 'host'],
  ['WEBHOOK_PORT', 'port'],
  ['WEBHOOK_SECRET', 'secret'],
]

/** Top-level keys the environment overrides. */
const TOP_OVERRIDES: ReadonlyArray<readonly [variable: string, key: 'log_level' | 'log_format']> = [
  ['LOG_LEVEL', 'log_level'],
  ['LOG_FORMAT', 'log_format'],
]

/** The config paths the overrides replace, by variable. */
export const OVERRIDE_PATHS: Readonly<Record<string, string>> = Object.fromEntries([
  ...OVERRIDES.map(([variable, key]): [string, string] => [variable, key === 'enabled' ? 'platforms.webhook.enabled' : `platforms.webhook.extra.${key}`]),
  ...TOP_OVERRIDES.map(([variable, key]): [string, string] => [variable, key]),
])

/** Which config paths `env` overrides, and with which variable: an error about such a value must not blame the file. */
export function overriddenPaths(env: Env): Map<string, string> {
  const paths = new Map<string, string>()
  for (const [variable, path] of Object.entries(OVERRIDE_PATHS)) {
    const value = env[variable]
    if (value !== undefined && value !== '') paths.set(path, variable)
  }
  return paths
}

/**
 * Applies `WEBHOOK_ENABLED`, `WEBHOOK_HOST`, `WEBHOOK_PORT`, `WEBHOOK_SECRET`, `LOG_LEVEL` and `LOG_FORMAT` over
 * the file's values.
 */
export function applyEnvOverrides(raw: unknown, env: Env): unknown {
  const root = isRecord(raw) ? { ...raw } : {}
  let logTouched = false
  for (const [variable, key] of TOP_OVERRIDES) {
    const value = env[variable]
    if (value === undefined || value === '') continue
    logTouched = true
    root[key] = value.toLowerCase()
  }
  const platforms = isRecord(root['platforms']) ? { ...root['platforms'] } : {}
  const webhook = isRecord(platforms['webhook']) ? { ...platforms['webhook'] } : {}
  const extra = isRecord(webhook['extra']) ? { ...webhook['extra'] } : {}
  let touched = false
  for (const [variable, key] of OVERRIDES) {
    const value = env[variable]
    if (value === undefined || value === '') continue
    touched = true
    if (key === 'enabled') webhook['enabled'] = value
    else extra[key] = value
  }
  if (!touched) return logTouched ? root : raw
  webhook['extra'] = extra
  platforms['webhook'] = webhook
  root['platforms'] = platforms
  return root
}

/** A plain object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key
}
