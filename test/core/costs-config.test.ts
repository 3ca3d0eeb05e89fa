/** `costs:` in the config: what a mistake is told, and a backend without notes refused for budgets and limits. */
import { describe, expect, it } from 'vitest'
import { ConfigError, createGateway, definePlugin, parseConfig } from '../../src/index.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { issuePaths } from '../fixtures/config-issues.js'

describe('costs config', () => {
  it('says which key is wrong and what belongs there', () => {
    const bad = { costs: { prices: { m: { input: -1, output: 2 } }, budgets: { pull_request: {} }, model_limits: { m: { window_seconds: 5 } } } }
    let error: unknown
    try {
      parseConfig(bad as never)
    } catch (err) {
      error = err
    }
    expect(ConfigError.is(error)).toBe(true)
    expect(issuePaths(() => parseConfig(bad as never))).toEqual(expect.arrayContaining(['costs.prices.m.input', 'costs.budgets.pull_request', 'costs.model_limits.m']))
    expect(String((error as Error).message)).toMatch(/give the budget in usd, in tokens, or both/)
    expect(String((error as Error).message)).toMatch(/give requests_per_minute, tokens_per_minute, or both/)
  })

  it('budgets on a backend without notes are refused, naming costs.budgets', async () => {
    const { notes: _dropped, ...withoutNotes } = memoryState({ concurrency: 1, maxQueue: 10 })
    const error = await createGateway({ costs: { budgets: { pull_request: { usd: 1 } } } } as never, [
      definePlugin({ name: 'no-notes', setup: () => ({ name: 'no-notes', state: withoutNotes }) }),
    ]).then(() => undefined, (err: unknown) => err)
    expect(ConfigError.is(error)).toBe(true)
    expect(String((error as Error).message)).toMatch(/costs\.budgets.*keeps no notes/s)
  })
})
