/**
 * Plugins' own configuration: each plugin's section of config.yaml (or its `with:` under `plugins:`) is
 * validated by the plugin's schema, its problems reported with their full paths, and the keys a plugin owns
 * are known to the unknown-key check, so `platforms.teams` or `agent.my_model` are typos only when no plugin
 * claims them.
 */
import * as v from 'valibot'
import { knownKeys, unknownKeys } from '../config/keys.js'
import { suggest } from '../../util/suggest.js'
import { isRecord } from '../config/env.js'
import type { ConfigIssue } from '../errors.js'
import type { PluginDefinition } from './definition.js'

/** Keys known at a dotted path beyond the core schema's own, because a plugin owns them. */
export type Claims = Map<string, Set<string>>

/**
 * What plugins claim: the last segment of each section under its parent (`platforms` → `telegram`) and, for a
 * section shared with the core or other plugins (`agent`, `state`), every key of each plugin's schema.
 */
export function claimsOf(definitions: readonly PluginDefinition[], coreKeysAt: (path: string) => readonly string[] | undefined): Claims {
  const claims: Claims = new Map()
  const claim = (path: string, key: string) => {
    const set = claims.get(path) ?? new Set<string>()
    set.add(key)
    claims.set(path, set)
  }
  for (const def of definitions) {
    if (def.section === undefined) continue
    if (coreKeysAt(def.section) !== undefined || def.selectedBy !== undefined) {
      for (const key of (def.options && knownKeys(def.options)) ?? []) claim(def.section, key)
    } else {
      const cut = def.section.lastIndexOf('.')
      claim(cut === -1 ? '' : def.section.slice(0, cut), def.section.slice(cut + 1))
    }
  }
  return claims
}

/** The value at a dotted path of `root`, or undefined. */
export function at(root: unknown, path: string): unknown {
  let current = root
  for (const key of path.split('.')) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined
    current = current[key]
  }
  return current
}

/** Whether a plugin chosen by a key of its section is the chosen one (`agent.runner` is `command`). */
export function isSelected(def: PluginDefinition, section: unknown, defaultValue: string | undefined): boolean {
  if (def.selectedBy === undefined) return true
  const chosen = isRecord(section) && typeof section[def.selectedBy.key] === 'string' ? section[def.selectedBy.key] : defaultValue
  return chosen === def.selectedBy.value
}

/**
 * Validates one plugin's options (`raw`, found at `path`; `''` reports paths relative to the options) with its
 * schema. Keys the core owns in a shared section (`coreKeys`) are left to the core. Returns the options, or
 * undefined when they are invalid. The gateway and `setUpPlugin` of `hookpilot/testing` both validate here.
 */
export function validateOptions(
  def: PluginDefinition,
  raw: unknown,
  path: string,
  issues: ConfigIssue[],
  coreKeys: readonly string[] = [],
): unknown {
  // In a shared section (`agent`, `state`) a plugin sees only its own keys; the core's walk judged the others.
  const own = def.options ? knownKeys(def.options) : []
  const given = shared(coreKeys, raw) ? Object.fromEntries(Object.entries(raw).filter(([key]) => own?.includes(key))) : raw ?? {}
  if (!def.options) {
    if (isRecord(given) && Object.keys(given).length > 0) {
      issues.push({ path, message: `plugin "${def.name}" takes no options` })
      return undefined
    }
    return {}
  }
  const before = issues.length
  unknownKeys(def.options, given, path, issues)
  const result = v.safeParse(def.options, given)
  if (!result.success) {
    // Unknown keys were reported above, every one with a suggestion; a strict object's "never" repeats the first.
    for (const issue of result.issues.filter((i) => i.expected !== 'never')) {
      const sub = v.getDotPath(issue)
      issues.push({ path: sub ? (path === '' ? sub : `${path}.${sub}`) : path, message: describeIssue(issue) })
    }
  }
  return issues.length > before || !result.success ? undefined : result.output
}

function shared(coreKeys: readonly string[], raw: unknown): raw is Record<string, unknown> {
  return coreKeys.length > 0 && isRecord(raw)
}

/**
 * One issue in words. valibot's own messages ("Invalid type: Expected Array but received ...") are rewritten
 * shorter; a schema's own messages ("expected a list of strings") are kept, and a wrong type says what kind of
 * value it got, never the value itself: a secret written as a YAML number must not be echoed to a terminal
 * or a log.
 */
export function describeIssue(issue: v.BaseIssue<unknown>): string {
  const own = !issue.message.startsWith('Invalid ')
  // A word from a closed list (log_level: verbose) is no secret: it is shown, with the closest allowed word.
  if (issue.type === 'picklist' && typeof issue.input === 'string' && issue.expected) {
    const allowed = [...issue.expected.matchAll(/"([^"]*)"/g)].map((m) => m[1] ?? '')
    const close = suggest(issue.input, allowed)
    const expected = own ? issue.message : `expected one of ${allowed.join(', ')}`
    return `${expected}, not ${JSON.stringify(issue.input.slice(0, 40))}${close === undefined ? '' : ` (did you mean "${close}"?)`}`
  }
  if (issue.kind === 'schema' && issue.expected) {
    if (own) return `${issue.message}, got ${kindOf(issue.input)}`
    if (issue.type !== 'union') return `expected ${issue.expected}, got ${kindOf(issue.input)}`
  }
  return own ? issue.message : issue.message.replace(/ but received .*$/, '')
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  switch (typeof value) {
    case 'object':
      return 'a mapping'
    case 'undefined':
      return 'nothing'
    case 'string':
      return 'a string'
    case 'number':
      return 'a number'
    case 'boolean':
      return 'true or false'
    default:
      return typeof value
  }
}
