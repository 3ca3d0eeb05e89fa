/**
 * A repository's policy file (`.hookpilot.yml`): what its owners may decide for their own pull requests' reviews
 * (filters, path-scoped instructions, a few review settings, budgets tighter than the gateway's). Read as YAML, validated with valibot, every problem
 * reported at once with its path; a file that does not validate is never half-applied.
 */
import * as v from 'valibot'
import { parseDocument } from 'yaml'
import type { ConfigIssue } from '../errors.js'
import { unknownKeys } from '../config/keys.js'
import { MAX_POLICY_BYTES } from '../config/route-policy.js'
import { budgetSchema } from '../config/costs-schema.js'

const text = v.string('expected a string')
const list = (what: string) => v.array(v.pipe(text, v.check((s) => s.trim() !== '', `an empty entry: ${what}`)), `expected a list of strings: ${what}`)
const flag = v.boolean('expected true or false')

/** `filters:`: when a pull request is not reviewed. Every filter set must let it through. */
const filtersSchema = v.strictObject({
  skip_drafts: v.optional(flag),
  skip_bots: v.optional(flag),
  skip_authors: v.optional(list('logins or globs, e.g. dependabot[bot] or *-bot')),
  only_authors: v.optional(list('logins or globs whose pull requests alone are reviewed')),
  labels: v.optional(list('labels the pull request must have, or "!label" for one it must not have')),
  skip_title: v.optional(list('words that, in a title, skip the review (case-insensitive), e.g. WIP')),
  base_branches: v.optional(list('branch globs the pull request must target, "!glob" for one it must not')),
  head_branches: v.optional(list('branch globs the pull request must come from, "!glob" for one it must not')),
  ignore_paths: v.optional(list('path globs whose changes alone do not warrant a review, e.g. *.lock')),
})

/** One entry of `instructions:`: globs of paths and what the agent is told about them. */
const instructionSchema = v.strictObject({
  paths: v.pipe(list('path globs, e.g. src/db/**'), v.minLength(1, 'list at least one path glob')),
  text: v.pipe(text, v.check((s) => s.trim() !== '', 'must not be empty: what the agent is told about these paths'), v.maxLength(4000, 'at most 4,000 characters an entry')),
})

/** `settings:`: the route settings a repository may choose. */
const settingsSchema = v.strictObject({
  fail_on: v.optional(v.picklist(['critical', 'major', 'minor', 'nit'], 'expected critical, major, minor or nit')),
  max_inline_comments: v.optional(v.pipe(v.number('expected a whole number'), v.integer('expected a whole number'), v.minValue(0, 'expected 0 or more'), v.maxValue(100, 'at most 100'))),
  incremental: v.optional(flag),
  /** Lengthens the route's `concurrency.debounce_seconds` for this repository; a shorter one changes nothing. */
  debounce_seconds: v.optional(v.pipe(v.number('expected a whole number of seconds'), v.integer('expected a whole number of seconds'), v.minValue(0, 'expected 0 or more'), v.maxValue(86_400, 'at most 86400 (a day)'))),
})

/**
 * `budgets:`: what this repository's reviews may spend, per pull request and per UTC day; each only tightens the
 * gateway's own (`costs.budgets`). The installation's month is the gateway's alone.
 */
const budgetsSchema = v.strictObject({
  pull_request: v.optional(budgetSchema),
  repository_day: v.optional(budgetSchema),
  installation_month: v.optional(v.never("the installation's monthly budget is the gateway's (costs.budgets.installation_month): a repository may set pull_request and repository_day")),
})

/** The whole file. */
export const policyFileSchema = v.strictObject({
  version: v.optional(v.literal(1, 'expected 1 (the only version so far)')),
  filters: v.optional(filtersSchema),
  instructions: v.optional(v.pipe(v.array(instructionSchema, 'expected a list of { paths: [...], text: ... }'), v.maxLength(100, 'at most 100 entries'))),
  settings: v.optional(settingsSchema),
  budgets: v.optional(budgetsSchema),
})

/** A policy file, validated. */
export type PolicyFile = v.InferOutput<typeof policyFileSchema>
/** Its `filters:`. */
export type PolicyFilters = NonNullable<PolicyFile['filters']>
/** Its `settings:`. */
export type PolicySettings = NonNullable<PolicyFile['settings']>
/** Its `budgets:`. */
export type PolicyBudgets = NonNullable<PolicyFile['budgets']>
/** One of its `instructions:`. */
export type PolicyInstruction = NonNullable<PolicyFile['instructions']>[number]

/** What reading a policy file's text gave: the policy, or every problem with its path. */
export type ParsedPolicy =
  | { readonly ok: true; readonly policy: PolicyFile }
  | { readonly ok: false; readonly issues: readonly ConfigIssue[] }

/**
 * Reads a policy file's text: YAML, then the schema, unknown keys each with a "did you mean". An empty file is an
 * empty policy. `maxBytes` bounds what is parsed at all.
 *
 * @example
 * ```ts
 * const parsed = parsePolicy('filters:\n  skip_drafts: true\n')
 * if (parsed.ok) parsed.policy.filters?.skip_drafts // true
 * ```
 */
export function parsePolicy(source: string, maxBytes = MAX_POLICY_BYTES): ParsedPolicy {
  const bytes = Buffer.byteLength(source)
  if (bytes > maxBytes) return { ok: false, issues: [{ path: '(file)', message: `the file is ${bytes} bytes; at most ${maxBytes} are read: make it smaller` }] }
  // No aliases expanded past a small count: a repository's YAML must not blow up in the gateway's memory.
  const document = parseDocument(source, { prettyErrors: false, uniqueKeys: true })
  if (document.errors.length > 0) {
    return { ok: false, issues: document.errors.map((error) => ({ path: `(line ${(error.linePos?.[0].line ?? 0)})`, message: `not valid YAML: ${error.message.split('\n')[0] ?? ''}` })) }
  }
  let value: unknown
  try {
    value = document.toJS({ maxAliasCount: 50 })
  } catch (err) {
    return { ok: false, issues: [{ path: '(file)', message: `not valid YAML: ${err instanceof Error ? err.message : String(err)}` }] }
  }
  if (value === null || value === undefined) return { ok: true, policy: {} }
  if (typeof value !== 'object' || Array.isArray(value)) return { ok: false, issues: [{ path: '(file)', message: 'expected a mapping of keys (filters, instructions, settings, budgets)' }] }
  const issues: ConfigIssue[] = []
  unknownKeys(policyFileSchema, value, '', issues)
  for (const [i, issue] of issues.entries()) issues[i] = { ...issue, message: issue.message.replace('docs/configuration.md', 'docs/policy.md') }
  const result = v.safeParse(policyFileSchema, value)
  if (!result.success) {
    for (const issue of result.issues) {
      const path = v.getDotPath(issue) ?? '(file)'
      // An unknown key is said once, by the walk above, with its suggestion.
      if (issue.type === 'strict_object') continue
      issues.push({ path, message: issue.message })
    }
  }
  if (issues.length > 0) return { ok: false, issues }
  return result.success ? { ok: true, policy: result.output } : { ok: false, issues: [{ path: '(file)', message: 'does not validate' }] }
}

/** The issues as lines a person reads (`filters.labels: expected a list of strings`). */
export function issueLines(issues: readonly ConfigIssue[]): string[] {
  return issues.map((issue) => `${issue.path === '' ? '(file)' : issue.path}: ${issue.message}`)
}
