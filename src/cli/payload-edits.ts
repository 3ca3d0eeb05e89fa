/**
 * What `hookpilot send` changes in a payload before it signs it: `--action`, `--head` (a push of a chosen head)
 * and `--set path=value` (any field). A path that does not lead anywhere is refused with what to write instead,
 * since a typo that silently adds a key would send a payload the route reads nothing new from.
 */
import { suggest } from '../util/suggest.js'
import { UsageError } from './args.js'

/** The edits, in the order they are applied: action, then head, then each `--set` in turn (a later one wins). */
export interface PayloadEdits {
  readonly action?: string | undefined
  readonly head?: string | undefined
  readonly sets?: readonly string[] | undefined
}

/** A commit SHA as GitHub writes one (7 to 64 hex digits: short, SHA-1 and SHA-256 object names). */
const SHA = /^[0-9a-f]{7,64}$/i

/** Keys that would reach an object's prototype instead of the payload. */
const UNSAFE_KEYS = new Set(['__proto__', 'prototype', 'constructor'])

/** Whether there is anything to apply. */
export function hasEdits(edits: PayloadEdits): boolean {
  return edits.action !== undefined || edits.head !== undefined || (edits.sets?.length ?? 0) > 0
}

/**
 * Applies `edits` to `payload` (a parsed JSON object of event `event`), in place, and returns it with the
 * warnings to show (a new key close to an existing one: a typo, perhaps). Throws a {@link UsageError} naming the
 * flag and what to change.
 */
export function applyPayloadEdits(payload: unknown, event: string, edits: PayloadEdits): { payload: Record<string, unknown>; warnings: string[] } {
  if (!isObject(payload)) throw new UsageError('--action, --head and --set edit a JSON object, and this payload is not one: pass a --payload file holding an object.')
  const warnings: string[] = []
  if (edits.action !== undefined) {
    if (edits.action.trim() === '') throw new UsageError('--action must not be empty.')
    // GitLab's merge request events carry their action inside object_attributes.
    if (event === 'Merge Request Hook') setPath(payload, ['object_attributes', 'action'], edits.action, '--action', warnings)
    else payload['action'] = edits.action
  }
  if (edits.head !== undefined) {
    if (!SHA.test(edits.head)) throw new UsageError(`--head takes a commit SHA (7 to 64 hex digits), not "${edits.head}".`)
    if (!isObject(payload['pull_request'])) {
      throw new UsageError(`--head sets pull_request.head.sha, and this ${event} payload has no pull_request: use --set PATH=SHA for where this event keeps its head.`)
    }
    setPath(payload, ['pull_request', 'head', 'sha'], edits.head, '--head', warnings)
    // A synchronize event names the new head twice, as GitHub's does.
    payload['after'] = edits.head
  }
  for (const set of edits.sets ?? []) {
    const { path, value } = parseSet(set)
    setPath(payload, path, value, `--set ${set}`, warnings)
  }
  return { payload, warnings }
}

/** `a.b.c=value`: the path's keys and the value, JSON when it parses as JSON, else the text as written. */
export function parseSet(set: string): { path: string[]; value: unknown } {
  const at = set.indexOf('=')
  if (at <= 0) throw new UsageError(`--set takes PATH=VALUE, e.g. --set pull_request.title='"Fix the build"' or --set number=7; "${set}" has ${at === 0 ? 'no path before' : 'no'} "=".`)
  const path = set.slice(0, at).split('.')
  if (path.some((key) => key === '')) {
    throw new UsageError(`--set ${set}: the path "${set.slice(0, at)}" has an empty key; write the keys separated by single dots, e.g. pull_request.head.sha.`)
  }
  const text = set.slice(at + 1)
  let value: unknown = text
  try {
    value = JSON.parse(text)
  } catch {
    // Not JSON: the text itself (--set pull_request.title=Fix needs no quotes).
  }
  return { path, value }
}

/**
 * Sets `path` in `root` to `value`. Every key but the last must exist (an array takes an index, up to its
 * length to append); the last may be new, with a warning when an existing key is close to it.
 */
function setPath(root: Record<string, unknown>, path: readonly string[], value: unknown, flag: string, warnings: string[]): void {
  let node: unknown = root
  for (const [i, key] of path.entries()) {
    const where = path.slice(0, i).join('.') || 'the payload'
    const last = i === path.length - 1
    if (UNSAFE_KEYS.has(key)) throw new UsageError(`${flag}: "${key}" cannot be set (it is not a payload field); choose another path.`)
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(key) || Number(key) > node.length) {
        throw new UsageError(`${flag}: ${where} is a list of ${node.length}, so its key must be an index from 0 to ${node.length} (${node.length} adds one), not "${key}".`)
      }
      if (last) node[Number(key)] = value
      else if (Number(key) === node.length) throw new UsageError(`${flag}: ${where} has no item ${key} to set a field of; set ${[...path.slice(0, i), key].join('.')} to a whole JSON value instead.`)
      else node = node[Number(key)]
      continue
    }
    if (!isObject(node)) {
      throw new UsageError(`${flag}: ${where} is ${describe(node)}, not an object, so it has no key "${key}"; set ${where} itself, or choose another path.`)
    }
    const known = Object.keys(node)
    if (!Object.hasOwn(node, key)) {
      const close = suggest(key, known)
      if (!last) {
        const hint = close === undefined ? `its keys: ${known.slice(0, 12).join(', ')}${known.length > 12 ? ', ...' : ''}` : `did you mean "${[...path.slice(0, i), close].join('.')}"?`
        throw new UsageError(`${flag}: ${where} has no key "${key}" (${hint}). To add a new object there, set ${[...path.slice(0, i + 1)].join('.')} to a JSON object.`)
      }
      if (close !== undefined) warnings.push(`${flag}: ${where} had no key "${key}", so it was added; did you mean "${[...path.slice(0, i), close].join('.')}"?`)
    }
    if (last) node[key] = value
    else node = node[key]
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'string') return `a string (${JSON.stringify(value.length > 30 ? `${value.slice(0, 29)}…` : value)})`
  return `a ${typeof value}`
}
