/**
 * `costs:`: what agent runs cost and what they may spend. The price table prices a run whose agent reported no
 * cost; budgets bound the spend per pull request, per repository per day and per installation per month; the
 * model limits keep every run of every instance under the model API's requests and tokens per minute.
 * docs/costs.md explains each key.
 */
import * as v from 'valibot'
import { integer } from './schema-kit.js'
import type { PriceTable } from '../usage.js'

/** A number of 0 or more; also a string of one (what `${VAR}` interpolation produces). */
const amount = (what: string) => {
  const expected = `expected a number of 0 or more: ${what}`
  return v.pipe(
    v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+(\.\d+)?$/), v.transform(Number))], expected),
    v.number(expected),
    v.finite(expected),
    v.minValue(0, expected),
  )
}

/** `costs.prices.<model>`: US dollars per million tokens. */
const priceSchema = v.strictObject({
  input: amount('US dollars per million input (prompt) tokens, e.g. 0.4'),
  output: amount('US dollars per million output (completion) tokens, e.g. 1.6'),
  cached_input: v.optional(amount('US dollars per million cached input tokens; the input price when not given')),
})

/**
 * One budget: a spend in US dollars, in tokens, or both (the first one reached refuses). A repository's policy
 * file (`budgets:`, src/core/policy/policy-file.ts) sets its budgets in the same form.
 */
export const budgetSchema = v.pipe(
  v.strictObject({
    usd: v.optional(amount('the most US dollars, e.g. 2.50')),
    tokens: v.optional(integer(1)),
  }),
  v.check((b) => b.usd !== undefined || b.tokens !== undefined, 'give the budget in usd, in tokens, or both'),
)

/** `costs.budgets`. */
const budgetsSchema = v.strictObject({
  /** Every run of one pull request (or merge request), for as long as it is open. */
  pull_request: v.optional(budgetSchema),
  /** Every run of one repository in a UTC day. */
  repository_day: v.optional(budgetSchema),
  /** Every run of one installation (the GitHub App's, else the organisation or owner) in a UTC month. */
  installation_month: v.optional(budgetSchema),
  /** A warning is logged (once per budget and period) when a budget is this full. */
  warn_at_percent: v.optional(integer(1, 100), 80),
  /**
   * The room a run reserves when its runner cannot bound its cost: a run is started only if this much is left,
   * and what it really used is settled when it ends.
   */
  reserve_usd: v.optional(amount('the US dollars one run reserves when its runner cannot bound them, e.g. 0.25'), 0.25),
  reserve_tokens: v.optional(integer(0), 50_000),
  /** A refused job ends `skipped` (the default), or, for a day's or month's budget, waits for it to renew. */
  when_exceeded: v.optional(v.picklist(['skip', 'wait'], 'expected skip (the job ends skipped) or wait (held until the budget renews)'), 'skip'),
})

/** `costs.budgets` with nothing set: its defaults (no limit), what runs reserve when only repositories set budgets. */
export const BUDGETS_DEFAULTS: v.InferOutput<typeof budgetsSchema> = v.parse(budgetsSchema, {})

/** `costs.model_limits.<model>`: the model API's published limits, kept by every instance on the store. */
const limitSchema = v.pipe(
  v.strictObject({
    requests_per_minute: v.optional(integer(1)),
    tokens_per_minute: v.optional(integer(1)),
    /** The limit's window: 60 (a minute, as providers publish them); a provider that counts per second sets 1. */
    window_seconds: v.optional(integer(1, 3600), 60),
  }),
  v.check((l) => l.requests_per_minute !== undefined || l.tokens_per_minute !== undefined, 'give requests_per_minute, tokens_per_minute, or both'),
)

/** `costs:`. */
export const costsSchema = v.strictObject({
  prices: v.optional(v.record(v.pipe(v.string(), v.minLength(1, 'a model name')), priceSchema), {}),
  budgets: v.optional(budgetsSchema),
  model_limits: v.optional(v.record(v.pipe(v.string(), v.minLength(1, 'a model name')), limitSchema), {}),
})

/** `costs:` after validation. */
export type CostsConfig = v.InferOutput<typeof costsSchema>
/** `costs.budgets` after validation. */
export type BudgetsConfig = NonNullable<CostsConfig['budgets']>
/** `costs.model_limits.<model>` after validation. */
export type ModelLimitConfig = CostsConfig['model_limits'][string]

/** `costs.prices` as the dispatcher prices usage with. */
export function priceTable(costs: CostsConfig): PriceTable {
  return Object.fromEntries(Object.entries(costs.prices).map(([model, p]) => [model, { input: p.input, output: p.output, cachedInput: p.cached_input }]))
}
