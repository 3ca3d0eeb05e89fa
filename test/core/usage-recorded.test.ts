/**
 * A run's usage, end to end inside one gateway: priced from `costs.prices` when the agent gave no cost, stored
 * with the job (a failed run's too, added to the job's next ones), logged, and counted in `/metrics` by route
 * and model.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { githubHeaders, githubPayload } from '../fixtures/github.js'
import { SECRET, testGateway, type TestGateway } from '../fixtures/gateway.js'

const body = githubPayload('pull_request', 'opened')
const request = (id: string) => ({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET, id), body })
const TOKEN = 'scrape-token-0123456789'
let gateway: TestGateway | undefined
afterEach(async () => {
  await gateway?.gateway.close()
  gateway = undefined
})

describe('usage of every run', () => {
  it('is priced, stored with the job, logged and counted by route and model', async () => {
    let tries = 0
    gateway = await testGateway({
      config: {
        metrics: { enabled: true, token: TOKEN },
        costs: { prices: { 'gpt-4.1-mini': { input: 0.4, output: 1.6, cached_input: 0.1 } } },
        agent: { runner: 'recording', retry: { attempts: 2, first_delay_seconds: 1, max_delay_seconds: 1 } },
      } as never,
      pollMs: 5,
      agent: () => {
        tries++
        const usage = { model: 'gpt-4.1-mini', inputTokens: 1_000_000, outputTokens: 100_000, cachedTokens: 500_000 }
        // The first run fails after spending: its tokens count for the job too.
        return tries === 1 ? { ok: false, reason: 'model overloaded', usage } : { ok: true, text: 'reviewed', usage }
      },
    })
    const res = await gateway.gateway.handle(request('d-usage'))
    expect(res.status).toBe(202)
    await expect.poll(async () => (await gateway?.state.jobs.list({}))?.[0]?.lastError, { timeout: 5_000 }).toBe('model overloaded')
    gateway.clock.advance(2_000)
    await gateway.answered(1)
    await gateway.idle()
    const [job] = await gateway.state.jobs.list({})
    // Each run: 0.5M uncached × 0.4 + 0.5M cached × 0.1 + 0.1M × 1.6 = 0.41 dollars; two runs.
    expect(job?.usage).toMatchObject({ model: 'gpt-4.1-mini', inputTokens: 2_000_000, outputTokens: 200_000, cachedTokens: 1_000_000 })
    expect(job?.usage?.costUsd).toBeCloseTo(0.82, 10)

    const logged = gateway.log.lines.filter((e) => e.message === 'agent run usage')
    expect(logged).toHaveLength(2)
    expect(logged[0]?.fields).toMatchObject({ route: 'pr', model: 'gpt-4.1-mini', input_tokens: 1_000_000, output_tokens: 100_000, cached_tokens: 500_000, cost_usd: 0.41 })

    const { url } = await gateway.gateway.listen({ port: 0 })
    const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()
    expect(text).toContain('hookpilot_agent_tokens_total{route="pr",model="gpt-4.1-mini",kind="input"} 2000000')
    expect(text).toContain('hookpilot_agent_tokens_total{route="pr",model="gpt-4.1-mini",kind="output"} 200000')
    expect(text).toContain('hookpilot_agent_tokens_total{route="pr",model="gpt-4.1-mini",kind="cached"} 1000000')
    expect(text).toMatch(/hookpilot_agent_cost_usd_total\{route="pr",model="gpt-4.1-mini"\} 0\.82/)
  })

  it('a runner\'s malformed usage is dropped with a warning, never summed', async () => {
    gateway = await testGateway({ agent: () => ({ ok: true, text: 'x', usage: { inputTokens: -5, outputTokens: 'many' } as never }) })
    await gateway.gateway.handle(request('d-bad'))
    await gateway.answered(1)
    await gateway.idle()
    expect((await gateway.state.jobs.list({}))[0]?.usage).toBeUndefined()
    expect(gateway.log.lines.some((e) => e.level === 'warn' && /usage that is not one/.test(e.message))).toBe(true)
  })
})
