/** Usage arithmetic: pricing from the table, sums over runs, and what is read back from storage. */
import { describe, expect, it } from 'vitest'
import { addUsage, costOf, priced, usageOf, usageText } from '../../src/core/usage.js'

describe('usage', () => {
  const prices = { 'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 } }

  it('prices a usage without a cost from the table, cached input at its own price', () => {
    const usage = priced({ model: 'gpt-4.1-mini', inputTokens: 1_000_000, outputTokens: 500_000, cachedTokens: 400_000 }, prices)
    // 600k uncached × 0.4 + 400k cached × 0.1 + 500k × 1.6, per million
    expect(usage.costUsd).toBeCloseTo(0.24 + 0.04 + 0.8, 10)
  })

  it('keeps the cost the agent reported, and leaves a model the table lacks without one', () => {
    expect(priced({ model: 'gpt-4.1-mini', inputTokens: 10, outputTokens: 10, costUsd: 7 }, prices).costUsd).toBe(7)
    expect(priced({ model: 'other', inputTokens: 10, outputTokens: 10 }, prices).costUsd).toBeUndefined()
    expect(priced({ inputTokens: 10, outputTokens: 10 }, prices).costUsd).toBeUndefined()
    expect(priced({ model: 'constructor', inputTokens: 10, outputTokens: 10 }, prices).costUsd).toBeUndefined()
  })

  it('prices cached input at the input price when the table gives none', () => {
    expect(costOf({ inputTokens: 2_000_000, outputTokens: 0, cachedTokens: 1_000_000 }, { input: 1, output: 2 })).toBeCloseTo(2, 10)
  })

  it('adds runs up: tokens always, a cost only while every part has one, a model while all name the same', () => {
    const a = { model: 'm', inputTokens: 10, outputTokens: 5, cachedTokens: 2, costUsd: 0.5 }
    expect(addUsage(a, { model: 'm', inputTokens: 1, outputTokens: 1, costUsd: 0.25 })).toEqual({ model: 'm', inputTokens: 11, outputTokens: 6, cachedTokens: 2, costUsd: 0.75 })
    expect(addUsage(a, { model: 'n', inputTokens: 1, outputTokens: 1 })).toEqual({ model: 'mixed', inputTokens: 11, outputTokens: 6, cachedTokens: 2 })
    expect(addUsage(undefined, a)).toBe(a)
  })

  it('reads back only what is a usage', () => {
    expect(usageOf({ inputTokens: 1, outputTokens: 2, costUsd: 0.1, model: 'm' })).toEqual({ model: 'm', inputTokens: 1, outputTokens: 2, costUsd: 0.1 })
    for (const bad of [null, 'x', {}, { inputTokens: -1, outputTokens: 2 }, { inputTokens: 1, outputTokens: '2' }, { inputTokens: 1, outputTokens: 2, costUsd: Number.NaN }]) {
      expect(usageOf(bad)).toBeUndefined()
    }
  })

  it('says a usage in words', () => {
    expect(usageText({ model: 'm', inputTokens: 1200, outputTokens: 300, cachedTokens: 800, costUsd: 0.0042 })).toBe('1,200 in (800 cached), 300 out, $0.0042 (m)')
  })
})
