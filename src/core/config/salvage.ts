/**
 * What still holds in an invalid configuration: the same configuration with every value that has a problem
 * taken out (so its default applies), validated again until nothing is wrong. `hookpilot check` and
 * `createGateway` compose it to find, in the same run, the problems only the plugins can see (a mistyped
 * `deliver:`, a target's missing `deliver_extra.pr_number`, an unknown `state.driver`) beside the problems of
 * the schema (an unknown key, a bad `log_level`). Without it each kind of problem hid the next: four runs for
 * ten mistakes.
 */
import { applyEnvOverrides, interpolateEnv, isRecord, type Env } from './env.js'
import type { ConfigIssue } from '../errors.js'
import type { HookpilotConfig } from './schema.js'

/** What a validation answers: the configuration when it holds, else its issues. */
export type Validation = { readonly output?: HookpilotConfig | undefined; readonly issues: readonly ConfigIssue[] }

/** Enough rounds for a wrong value, then its now missing parent, then that parent's section. */
const ROUNDS = 6

/**
 * The valid part of `input` (undefined when nothing valid is left), the paths taken out, and the problems the
 * later rounds found that the first could not see (an unclosed `{number` in the prompt of a route whose
 * `events:` was wrong). `validate` is called with the environment already applied: an unset `${VAR}` stays as
 * written, since a missing variable is not a reason to drop the route that holds it.
 */
export function salvage(input: unknown, env: Env, validate: (raw: unknown) => Validation): Salvaged {
  let raw = withStandInSecret(interpolateEnv(applyEnvOverrides(input, env), env, undefined))
  const removed: string[] = []
  const found: ConfigIssue[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const { output, issues } = validate(raw)
    if (round > 0) found.push(...keepNew(issues, found, removed))
    if (output) return { config: output, removed, found }
    const paths = [...new Set(issues.map((i) => i.path))]
    if (paths.includes('')) break
    const next = structuredClone(raw)
    for (const path of paths) removed.push(remove(next, path))
    raw = compact(next)
  }
  return { config: undefined, removed, found }
}

/** A salvaged configuration, the paths taken out of it, and the problems found on the way. */
export interface Salvaged {
  readonly config: HookpilotConfig | undefined
  readonly removed: readonly string[]
  readonly found: readonly ConfigIssue[]
}

/**
 * A route whose misspelt `secrett:` was taken out would be dropped whole for having no secret, and the checks
 * of its `deliver:` with it; a stand-in global secret keeps it (when the file has none: then a route without
 * its own secret was already reported by the first round, or its misspelt key was).
 */
function withStandInSecret(raw: unknown): unknown {
  if (!isRecord(raw)) return raw
  const platforms = isRecord(raw['platforms']) ? raw['platforms'] : {}
  const webhook = isRecord(platforms['webhook']) ? platforms['webhook'] : {}
  const extra = isRecord(webhook['extra']) ? webhook['extra'] : {}
  if (extra['secret'] !== undefined) return raw
  return { ...raw, platforms: { ...platforms, webhook: { ...webhook, extra: { ...extra, secret: 'stand-in secret of a salvaged configuration' } } } }
}

/**
 * The issues found in a salvaged configuration that are new and not caused by the salvage: a problem at a path
 * already reported, one that names a section taken out ("platforms.telegram is not enabled" after its
 * misspelt key took the section out), or one of an object that lost a value to the salvage ("give the budget in
 * usd, in tokens, or both" once its wrong `usd` was taken out: the first round checked the object as written) is
 * left out.
 */
export function keepNew(found: readonly ConfigIssue[], reported: readonly ConfigIssue[], removed: readonly string[]): ConfigIssue[] {
  const seen = new Set(reported.map((i) => `${i.path}\u0000${i.message}`))
  return found.filter((issue) =>
    !seen.has(`${issue.path}\u0000${issue.message}`) &&
    !removed.some((path) => path !== '' && (issue.path === path || issue.path.startsWith(`${path}.`) || path.startsWith(`${issue.path}.`) || issue.message.includes(path))))
}

const GONE = Symbol('removed')

/**
 * Takes the value at `path` (`a.b`, `a.b[2]`, `a.b.2`) out of `root`; a value that is not there (a required
 * key that is missing) takes its parent out instead. Answers the path really taken out.
 */
function remove(root: unknown, path: string): string {
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.')
  let parent: unknown = root
  for (let i = 0; i < keys.length - 1; i++) {
    const next = child(parent, keys[i] ?? '')
    if (next === undefined) return removeAt(root, keys.slice(0, i + 1))
    parent = next
  }
  const last = keys.at(-1) ?? ''
  if (child(parent, last) === undefined) return keys.length > 1 ? removeAt(root, keys.slice(0, -1)) : path
  return removeAt(root, keys)
}

function removeAt(root: unknown, keys: readonly string[]): string {
  let parent: unknown = root
  for (const key of keys.slice(0, -1)) parent = child(parent, key)
  const last = keys.at(-1) ?? ''
  if (Array.isArray(parent)) parent[Number(last)] = GONE // dropped by compact(), so later indexes still point right
  else if (isRecord(parent)) delete parent[last]
  return keys.join('.')
}

function child(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return /^\d+$/.test(key) ? value[Number(key)] : undefined
  return isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined
}

/** Drops the items {@link removeAt} marked from every list. */
function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== GONE).map(compact)
  if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) value[key] = compact(item)
  }
  return value
}
