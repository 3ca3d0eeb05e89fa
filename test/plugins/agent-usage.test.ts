/**
 * What agent runs report they used: the openai runner adds up every model call's `usage` (against a real
 * OpenAI-compatible server on node:http), and the command runner reads it from a real `claude -p
 * --output-format json` or `codex exec --json` stand-in's output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentInput } from '../../src/core/types.js'
import { openaiAgent } from '../../src/plugins/runners/openai/openai-runner.js'
import { commandAgent } from '../../src/plugins/runners/command/command-runner.js'
import { pluginContext } from '../../src/testing/context.js'
import { fakeModel, lastToolResult, type FakeModel, type ModelCall, type ModelReply } from '../fixtures/fake-model.js'
import { fixtureAgent } from '../fixtures/process.js'

const input: AgentInput = { prompt: 'review 7', route: 'pr', event: 'pull_request', deliveryId: 'd-1' }
let script: (call: ModelCall, index: number) => ModelReply = () => ({ content: 'ok' })
let model: FakeModel
beforeAll(async () => {
  model = await fakeModel((call, index) => script(call, index))
})
afterAll(async () => {
  await model.close()
})

describe('the openai runner reports usage', () => {
  const runner = () => openaiAgent({ baseUrl: model.url, model: 'gpt-test', allowCommands: ['echo'], env: process.env })

  it('adds up every call of the run, cached tokens included, under the configured model', async () => {
    script = (call) => (lastToolResult(call) === undefined
      ? { command: ['echo', 'diff'], usage: { prompt: 1000, completion: 20, cached: 600 } }
      : { content: 'looks good', usage: { prompt: 1100, completion: 80 } })
    const result = await runner().run(input, pluginContext())
    expect(result).toEqual({ ok: true, text: 'looks good', usage: { model: 'gpt-test', inputTokens: 2100, outputTokens: 100, cachedTokens: 600 } })
  })

  it('reports what a failed run used before it failed (its tokens were billed)', async () => {
    script = (_call, index) => (index % 2 === 0 ? { command: ['echo', 'x'], usage: { prompt: 50, completion: 5 } } : { status: 500, body: { error: { message: 'overloaded' } } })
    const result = await runner().run(input, pluginContext())
    expect(result.ok).toBe(false)
    expect(result.usage).toEqual({ model: 'gpt-test', inputTokens: 50, outputTokens: 5 })
  })

  it('reports no usage when the server sends none', async () => {
    script = () => ({ content: 'plain' })
    expect(await runner().run(input, pluginContext())).toEqual({ ok: true, text: 'plain' })
  })
})

describe('the command runner reads a CLI\'s usage', () => {
  it('claude -p --output-format json: the result text, all input tokens, cache reads as cached, its own cost', async () => {
    const runner = commandAgent({ command: fixtureAgent('fake-claude'), timeoutMs: 10_000, output: 'claude-json', env: { ...process.env, CLAUDE_COST_USD: '0.0123', AGENT_MS: '0' } })
    expect(await runner.run(input, pluginContext())).toEqual({
      ok: true, text: 'answer: review 7',
      usage: { model: 'claude-sonnet-4-5', inputTokens: 12 + 300 + 1500, outputTokens: 250, cachedTokens: 1500, costUsd: 0.0123 },
    })
  })

  it('claude ending with an error result fails the run and still reports its usage', async () => {
    const runner = commandAgent({ command: fixtureAgent('fake-claude'), timeoutMs: 10_000, output: 'claude-json', env: { ...process.env, CLAUDE_FAIL: '1', AGENT_MS: '0' } })
    const result = await runner.run(input, pluginContext())
    expect(result.ok).toBe(false)
    expect(result.usage?.outputTokens).toBe(250)
  })

  it('codex exec --json: the last agent_message, every turn\'s tokens, the configured model', async () => {
    const runner = commandAgent({ command: fixtureAgent('fake-codex'), timeoutMs: 10_000, output: 'codex-jsonl', model: 'gpt-5-codex' })
    expect(await runner.run(input, pluginContext())).toEqual({
      ok: true, text: 'answer: review 7', usage: { model: 'gpt-5-codex', inputTokens: 3000, outputTokens: 400, cachedTokens: 1400 },
    })
  })

  it('a codex turn that failed is the run\'s reason, its tokens counted', async () => {
    const runner = commandAgent({ command: fixtureAgent('fake-codex'), timeoutMs: 10_000, output: 'codex-jsonl', env: { ...process.env, CODEX_FAIL: '1' } })
    const result = await runner.run(input, pluginContext())
    expect(result).toMatchObject({ ok: false, reason: 'codex failed: stream disconnected before completion', usage: { inputTokens: 3000 } })
  })

  it('output that is not the JSON asked for says what to change', async () => {
    const runner = commandAgent({ command: fixtureAgent('slow-review'), timeoutMs: 10_000, output: 'claude-json', env: { ...process.env, AGENT_MS: '0' } })
    const result = await runner.run(input, pluginContext())
    expect(result.ok ? '' : result.reason).toMatch(/claude-json but the command printed no JSON object \(run it with -p --output-format json\)/)
  })

  it("claude's --max-budget-usd bounds what a run reserves of a budget (either spelling); without it the runner bounds nothing", () => {
    expect(commandAgent({ command: ['claude', '-p', '--max-budget-usd', '0.9'], timeoutMs: 10_000 }).maxUsage).toEqual({ usd: 0.9 })
    expect(commandAgent({ command: ['claude', '-p', '--max-budget-usd=0.5'], timeoutMs: 10_000 }).maxUsage).toEqual({ usd: 0.5 })
    expect(commandAgent({ command: ['claude', '-p'], timeoutMs: 10_000 }).maxUsage).toBeUndefined()
  })
})
