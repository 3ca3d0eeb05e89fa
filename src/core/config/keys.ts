/**
 * Unknown keys, every one of them, each with a "did you mean" when a known key is close. valibot's strict
 * objects stop at the first unknown key of an object; a config with `secrett` and `evnets` in one route must
 * hear about both in one run. The walk follows the schema: objects, records, arrays, optionals and pipes.
 */
import type * as v from 'valibot'
import type { ConfigIssue } from '../errors.js'
import { suggest } from '../../util/suggest.js'

type AnySchema = v.GenericSchema & {
  readonly type: string
  readonly entries?: Readonly<Record<string, AnySchema>>
  readonly wrapped?: AnySchema
  readonly item?: AnySchema
  readonly value?: AnySchema
  readonly options?: readonly AnySchema[]
  readonly pipe?: readonly AnySchema[]
}

/** The object keys a schema knows at its top, or undefined when it is not an object schema. */
export function knownKeys(schema: v.GenericSchema): readonly string[] | undefined {
  const object = objectOf(schema)
  return object?.entries ? Object.keys(object.entries) : undefined
}

/** Keys known at a dotted path although the schema does not list them (sections and keys plugins own). */
export type ExtraKeys = (path: string) => readonly string[]

const NONE: ExtraKeys = () => []

/** Reports every key of `value` that `schema` (and `extra`) does not know, at any depth, with its dotted path. */
export function unknownKeys(schema: v.GenericSchema, value: unknown, path: string, issues: ConfigIssue[], extra: ExtraKeys = NONE): void {
  walk(schema, value, path, issues, extra)
}

function walk(schema: AnySchema, value: unknown, path: string, issues: ConfigIssue[], extra: ExtraKeys): void {
  const object = objectOf(schema)
  if (object?.entries && isRecord(value)) {
    const claimed = extra(path)
    const known = [...Object.keys(object.entries), ...claimed]
    for (const [key, child] of Object.entries(value)) {
      const childPath = path === '' ? key : `${path}.${key}`
      const entry = Object.hasOwn(object.entries, key) ? object.entries[key] : undefined
      if (entry) walk(entry, child, childPath, issues, extra)
      else if (!claimed.includes(key)) issues.push({ path: childPath, message: unknownKeyMessage(key, known) })
    }
    return
  }
  const inner = unwrap(schema)
  if (inner === undefined) return
  if (inner.type === 'record' && inner.value && isRecord(value)) {
    for (const [key, child] of Object.entries(value)) walk(inner.value, child, path === '' ? key : `${path}.${key}`, issues, extra)
  } else if (inner.type === 'array' && inner.item && Array.isArray(value)) {
    value.forEach((child, i) => walk(inner.item!, child, `${path}[${i}]`, issues, extra))
  } else if (inner.type === 'union' && inner.options) {
    // Only objects are walked inside a union, and only when one option is an object schema.
    const option = inner.options.find((o) => objectOf(o) !== undefined)
    if (option && isRecord(value)) walk(option, value, path, issues, extra)
  }
}

/** Where a dotted path leaves a schema's known keys: the path before that key, the key, and the keys known there. */
export interface PathMiss {
  readonly parent: string
  readonly key: string
  readonly known: readonly string[]
}

/**
 * Whether `path` (dotted: `auth.token`) names a key of `schema`, following nested objects; any key under a
 * record or a loose object is taken. Undefined when it does, else where it stops. A schema whose shape cannot be
 * read (a union, a custom schema) is taken to hold any key.
 */
export function missingPath(schema: v.GenericSchema, path: string): PathMiss | undefined {
  let current: AnySchema | undefined = schema
  const keys = path.split('.')
  for (const [i, key] of keys.entries()) {
    const parent = keys.slice(0, i).join('.')
    const object: AnySchema | undefined = current && objectOf(current)
    if (object?.entries) {
      if (Object.hasOwn(object.entries, key)) current = object.entries[key]
      else if (object.type === 'loose_object') return undefined
      else return { parent, key, known: Object.keys(object.entries) }
      continue
    }
    const inner: AnySchema | undefined = current && unwrap(current)
    if (inner?.type === 'record') current = inner.value
    else if (inner === undefined || OPAQUE.has(inner.type)) return undefined
    else return { parent, key, known: [] }
  }
  return undefined
}

/** Schemas whose keys cannot be listed from their definition. */
const OPAQUE = new Set(['any', 'unknown', 'custom', 'lazy', 'union', 'variant', 'intersect'])

/** `unknown key "secrett" (did you mean "secret"?)`, or the list of known keys when none is close. */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const close = suggest(key, known)
  if (close !== undefined) return `unknown key: did you mean "${close}"? (check docs/configuration.md)`
  const listed = known.length > 0 && known.length <= 12 ? ` (known here: ${known.join(', ')})` : ''
  return `unknown key${listed}; check its spelling against docs/configuration.md`
}

/** ` (did you mean "github_comment"?)` when a known name is close to `word`, else nothing. */
export function didYouMean(word: string, known: readonly string[]): string {
  const close = suggest(word, known)
  return close === undefined ? '' : ` (did you mean "${close}"?)`
}

function objectOf(schema: AnySchema): AnySchema | undefined {
  const inner = unwrap(schema)
  return inner && (inner.type === 'object' || inner.type === 'strict_object' || inner.type === 'loose_object') ? inner : undefined
}

/** The schema under optional/nullable/pipe wrappers. */
function unwrap(schema: AnySchema): AnySchema | undefined {
  let current: AnySchema | undefined = schema
  for (let i = 0; current && i < 10; i++) {
    if (current.pipe && current.pipe[0] && current.pipe[0] !== current) current = current.pipe[0]
    else if (current.wrapped) current = current.wrapped
    else return current
  }
  return current
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
