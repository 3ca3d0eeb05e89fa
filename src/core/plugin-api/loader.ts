/**
 * Loading the modules `plugins:` lists: a path relative to the config file's folder, or a package name found
 * in a `node_modules` folder above it. A module that cannot be found, fails to load, or exports no plugin is a
 * startup error naming `plugins[N].use`.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { isRecord } from '../config/env.js'
import { ConfigError, type ConfigIssue } from '../errors.js'
import { defineConfiguredPlugin, isPluginDefinition, type PluginDefinition } from './definition.js'
import type { GatewayPlugin } from './gateway-plugin.js'

/** Loads every listed module; throws one ConfigError for every entry that fails. */
export async function loadPluginModules(entries: unknown, baseDir: string, source?: string): Promise<PluginDefinition[]> {
  if (!Array.isArray(entries)) return []
  const issues: ConfigIssue[] = []
  const loaded: PluginDefinition[] = []
  for (const [i, entry] of entries.entries()) {
    const use = isRecord(entry) ? entry['use'] : undefined
    if (typeof use !== 'string' || use.trim() === '') continue // the schema reports it
    const path = `plugins[${i}].use`
    const file = locate(use, baseDir)
    if (file === undefined) {
      issues.push({ path, message: `cannot find "${use}": no such file (from ${baseDir}), and no package of that name in a node_modules folder above it` })
      continue
    }
    let module: Record<string, unknown>
    try {
      module = (await import(pathToFileURL(file).href)) as Record<string, unknown>
    } catch (cause) {
      issues.push({ path, message: `cannot load "${use}" (${file}): ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}` })
      continue
    }
    const plugin = pluginOf(module)
    if (plugin === undefined) {
      issues.push({ path, message: `"${use}" exports no plugin: export default definePlugin({ name, options, setup }) from hookpilot` })
      continue
    }
    loaded[i] = plugin
  }
  if (issues.length > 0) throw new ConfigError(issues, { source })
  return loaded
}

/** The module's default export, else its only plugin-shaped export; a plain plugin object is wrapped. */
function pluginOf(module: Record<string, unknown>): PluginDefinition | undefined {
  const candidates = [module['default'], ...Object.entries(module).filter(([k]) => k !== 'default').map(([, v]) => v)]
  const definition = candidates.find(isPluginDefinition)
  if (definition) return definition
  const plain = candidates.find(isGatewayPlugin)
  return plain && defineConfiguredPlugin({ name: plain.name, setup: () => plain })
}

function isGatewayPlugin(value: unknown): value is GatewayPlugin {
  return isRecord(value) && typeof value['name'] === 'string'
    && ['deliveryTargets', 'eventFilters', 'agentRunner', 'sources', 'state', 'rateLimiter', 'logger'].some((slot) => slot in value)
}

/** The file a `use:` names: a path, or a package's entry point (its `exports` for `import`, else `main`). */
function locate(use: string, baseDir: string): string | undefined {
  if (use.startsWith('.') || isAbsolute(use)) {
    const file = resolve(baseDir, use)
    return existsSync(file) ? file : undefined
  }
  const [scopeOrName, maybeName, ...rest] = use.split('/')
  const name = scopeOrName?.startsWith('@') ? `${scopeOrName}/${maybeName}` : (scopeOrName ?? '')
  const subpath = (scopeOrName?.startsWith('@') ? rest : [maybeName, ...rest]).filter((p): p is string => p !== undefined)
  for (let dir = baseDir; ; dir = dirname(dir)) {
    const root = join(dir, 'node_modules', name)
    const manifest = join(root, 'package.json')
    if (existsSync(manifest)) return entryOf(root, JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>, subpath.join('/'))
    if (dirname(dir) === dir) return undefined
  }
}

function entryOf(root: string, manifest: Record<string, unknown>, subpath: string): string | undefined {
  const key = subpath === '' ? '.' : `./${subpath}`
  const exports = manifest['exports']
  const target = typeof exports === 'string' && key === '.' ? exports : isRecord(exports) ? pick(key in exports ? exports[key] : key === '.' ? exports : undefined) : undefined
  const file = target ?? (key === '.' ? (typeof manifest['main'] === 'string' ? manifest['main'] : 'index.js') : subpath)
  const full = join(root, file)
  return existsSync(full) ? full : undefined
}

/** The file for `import` in a conditional export. */
function pick(target: unknown): string | undefined {
  if (typeof target === 'string') return target
  if (!isRecord(target)) return undefined
  for (const condition of ['import', 'node', 'default']) {
    const found = pick(target[condition])
    if (found !== undefined) return found
  }
  return undefined
}
