/**
 * What a repository's policy file may decide is the gateway's call (`policy.allow`): the keys it did not allow are
 * dropped from the file and named, so the repository's owners see what the gateway refused.
 */
import type { PolicyKey } from '../config/route-policy.js'
import type { PolicyFile } from './policy-file.js'

/** The policy with only what the gateway allows, and the keys it dropped (dotted: `settings.fail_on`). */
export interface AllowedPolicy {
  readonly policy: PolicyFile
  readonly refused: readonly string[]
}

/** The sections whose keys `allow` may name one by one. */
const SECTIONS = ['filters', 'settings', 'budgets'] as const

/** Keeps of `policy` what `allow` names (a section allows each of its keys); says what it dropped. */
export function allowedPolicy(policy: PolicyFile, allow: readonly string[]): AllowedPolicy {
  const allowed = new Set(allow)
  const refused: string[] = []
  const kept: { -readonly [K in keyof PolicyFile]: PolicyFile[K] } = {}
  if (policy.version !== undefined) kept.version = policy.version
  if (policy.instructions !== undefined) {
    if (allowed.has('instructions' satisfies PolicyKey)) kept.instructions = policy.instructions
    else refused.push('instructions')
  }
  for (const section of SECTIONS) {
    const values = policy[section] as Readonly<Record<string, unknown>> | undefined
    if (values === undefined) continue
    const whole = allowed.has(section)
    const entries = Object.entries(values).filter(([key, value]) => {
      if (value === undefined) return false
      if (whole || allowed.has(`${section}.${key}`)) return true
      refused.push(`${section}.${key}`)
      return false
    })
    if (entries.length > 0) (kept as Record<string, unknown>)[section] = Object.fromEntries(entries)
  }
  return { policy: kept, refused }
}
