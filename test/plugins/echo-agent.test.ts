import { describe, expect, it } from 'vitest'
import { echoAgent } from '../../src/plugins/runners/echo/echo-runner.js'
import { agentRunnerContract } from '../../src/testing/agent-runner.js'
import { pluginContext } from '../../src/testing/context.js'

agentRunnerContract('echoAgent', echoAgent, { expected: (prompt) => prompt })

describe('echoAgent', () => {
  it('is the `echo` runner and answers with the prompt exactly, whitespace included', async () => {
    const runner = echoAgent()
    expect(runner.name).toBe('echo')
    const prompt = '  PR #1: {title}\n\n```json\n{}\n```\n'
    expect(await runner.run({ prompt, route: 'r', event: 'e', deliveryId: 'd' }, pluginContext())).toEqual({
      ok: true,
      text: prompt,
    })
  })
})
