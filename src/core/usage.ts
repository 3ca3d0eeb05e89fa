/**
 * What an agent run used: tokens in, out and read from the model's cache, and a cost in US dollars. A runner
 * reports it with its result (the `openai` runner adds up its calls, the `command` runner reads a CLI's JSON);
 * the gateway prices what the runner did not price from the config's price table, stores the sum with the job
 * and counts it in the metrics.
 */

/** The usage of one agent run, or the sum of a job's runs. Token counts are whole numbers, never negative. */
export interface RunUsage {
  /** The model the tokens were spent on, as the provider names it (`gpt-4.1-mini`); the price table's key. */
  readonly model?: string | undefined
  /** Prompt tokens, the cached ones included. */
  readonly inputTokens: number
  /** Completion tokens. */
  readonly outputTokens: number
  /** Of `inputTokens`, those the provider read from its prompt cache (billed lower by most). */
  readonly cachedTokens?: number | undefined
  /** What the run cost, in US dollars: as the agent reported it, else priced from the price table; absent when neither knows. */
  readonly costUsd?: number | undefined
}

/** The largest cost one run of a runner can reach (claude's `--max-budget-usd`); a part left out is not bounded. */
export interface UsageBound {
  readonly usd?: number | undefined
  readonly tokens?: number | undefined
}

/** The price of one model, in US dollars per million tokens (`costs.prices.<model>`). */
export interface ModelPrice {
  readonly input: number
  readonly output: number
  /** Cached input tokens; the input price when not given. */
  readonly cachedInput?: number | undefined
}

/** Prices by model name. */
export type PriceTable = Readonly<Record<string, ModelPrice>>

/** All tokens of a usage: what a budget in tokens counts. */
export function totalTokens(usage: Pick<RunUsage, 'inputTokens' | 'outputTokens'>): number {
  return usage.inputTokens + usage.outputTokens
}

/**
 * The usage with its cost: the agent's own when it reported one, else priced from `prices` by its model (a model
 * the table lacks, or a usage with no model, stays without a cost).
 */
export function priced(usage: RunUsage, prices: PriceTable): RunUsage {
  if (usage.costUsd !== undefined || usage.model === undefined) return usage
  const price = Object.hasOwn(prices, usage.model) ? prices[usage.model] : undefined
  if (price === undefined) return usage
  return { ...usage, costUsd: costOf(usage, price) }
}

/** What `usage` costs at `price`, in US dollars. */
export function costOf(usage: Pick<RunUsage, 'inputTokens' | 'outputTokens' | 'cachedTokens'>, price: ModelPrice): number {
  const cached = Math.min(usage.cachedTokens ?? 0, usage.inputTokens)
  const dollars = (usage.inputTokens - cached) * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output
  return dollars / 1_000_000
}

/**
 * Two usages added up (a job's runs, a run's model calls). The model is kept while both name the same one, and
 * becomes `mixed` otherwise; a cost is kept only while every part has one (a sum with an unknown part is unknown).
 */
export function addUsage(a: RunUsage | undefined, b: RunUsage): RunUsage {
  if (a === undefined) return b
  const model = a.model === b.model ? a.model : a.model === undefined ? b.model : b.model === undefined ? a.model : 'mixed'
  const cached = (a.cachedTokens ?? 0) + (b.cachedTokens ?? 0)
  const cost = a.costUsd !== undefined && b.costUsd !== undefined ? a.costUsd + b.costUsd : undefined
  return {
    ...(model === undefined ? {} : { model }),
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    ...(cached > 0 || a.cachedTokens !== undefined || b.cachedTokens !== undefined ? { cachedTokens: cached } : {}),
    ...(cost === undefined ? {} : { costUsd: cost }),
  }
}

/**
 * A usage read back from storage or from a plugin, checked: undefined when `value` is not one (a record written
 * before usage was stored, a plugin's malformed report), so a bad value never reaches a sum.
 */
export function usageOf(value: unknown): RunUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const o = value as Record<string, unknown>
  const count = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x >= 0
  if (!count(o.inputTokens) || !count(o.outputTokens)) return undefined
  if (o.cachedTokens !== undefined && !count(o.cachedTokens)) return undefined
  if (o.costUsd !== undefined && !count(o.costUsd)) return undefined
  if (o.model !== undefined && typeof o.model !== 'string') return undefined
  return {
    ...(typeof o.model === 'string' ? { model: o.model } : {}),
    inputTokens: Math.round(o.inputTokens as number),
    outputTokens: Math.round(o.outputTokens as number),
    ...(o.cachedTokens === undefined ? {} : { cachedTokens: Math.round(o.cachedTokens as number) }),
    ...(o.costUsd === undefined ? {} : { costUsd: o.costUsd as number }),
  }
}

/** A usage in words, for `hookpilot jobs show` and the logs: `1,200 in (800 cached), 300 out, $0.0042 (gpt-4.1-mini)`. */
export function usageText(usage: RunUsage): string {
  const n = (x: number) => x.toLocaleString('en-US')
  const cached = usage.cachedTokens ? ` (${n(usage.cachedTokens)} cached)` : ''
  const cost = usage.costUsd === undefined ? '' : `, $${usage.costUsd.toFixed(4)}`
  const model = usage.model === undefined ? '' : ` (${usage.model})`
  return `${n(usage.inputTokens)} in${cached}, ${n(usage.outputTokens)} out${cost}${model}`
}
