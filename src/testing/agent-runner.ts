/**
 * The contract every {@link AgentRunner} honours, run by each implementation's own test file.
 */
import { describe, expect, it } from 'vitest'
import type { AgentInput, AgentRunner } from '../core/types.js'
import { pluginContext } from './context.js'

/** Options of {@link agentRunnerContract}. */
export interface AgentRunnerContractOptions {
  /** The answer the runner gives to `prompt`, when it is predictable (echo, a fixture program). */
  readonly expected?: (prompt: string) => string
}

/** Runs the agent-runner contract against a runner made by `make()` for each test. */
export function agentRunnerContract(
  name: string,
  make: () => AgentRunner,
  options: AgentRunnerContractOptions = {},
): void {
  const input = (prompt: string): AgentInput => ({
    prompt,
    route: 'github-pr-review',
    event: 'pull_request',
    deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
  })

  describe(`${name} (AgentRunner contract)`, () => {
    it('has a name', () => {
      expect(make().name).toMatch(/^[a-z0-9_-]+$/)
    })

    it('answers a normal prompt with ok and a text', async () => {
      const prompt = 'PR #1347: Update the README with new information.\nReview it; say "LGTM" if fine — ünïcödé.'
      const result = await make().run(input(prompt), pluginContext())
      expect(result).toEqual({ ok: true, text: options.expected?.(prompt) ?? (expect.any(String) as unknown) })
    })

    it('keeps concurrent runs apart', async () => {
      const runner = make()
      const prompts = ['first', 'second', 'third', 'fourth']
      const results = await Promise.all(prompts.map((p) => runner.run(input(p), pluginContext())))
      for (const [i, result] of results.entries()) {
        const prompt = prompts[i] ?? ''
        expect(result).toEqual({ ok: true, text: options.expected?.(prompt) ?? (expect.any(String) as unknown) })
      }
    })

    it('does not run when the signal is already aborted, and says so as a value', async () => {
      const controller = new AbortController()
      controller.abort()
      const result = await make().run(input('never run me'), pluginContext(controller.signal))
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.reason).toMatch(/abort/i)
    })
  })
}
