/**
 * The model API's limits kept (issue 35, item 3): a burst of pull requests against an OpenAI-compatible API
 * (node:http) that counts every request over a rolling window and answers `429` with `Retry-After` past its
 * limit. The gateway paces every call through the state store's notes, so the API's limit is never reached
 * and no job fails; when the API limits harder than configured, its 429s slow the model down instead of
 * failing runs. Jobs that must wait go back to the queue (the store), not a worker's memory.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createGateway, definePlugin, type Gateway } from '../../src/index.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import type { StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
import { recordingLogger } from '../../src/testing/context.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'

const SECRET = 'limits-secret-0123456789'
const body = githubPayload('pull_request', 'opened')

/** An OpenAI-compatible API that serves at most `limit` requests in any `windowMs`, and answers 429 past it. */
async function limitedModel(limit: number, windowMs: number) {
  const served: number[] = []
  let refused = 0
  let busiest = 0
  const server: Server = createServer((req, res) => {
    // Counted as it arrives (its headers read), as a provider's gateway counts it, not once its body is read.
    const now = performance.now()
    req.resume()
    req.on('end', () => {
      while (served.length > 0 && (served[0] ?? 0) <= now - windowMs) served.shift()
      if (served.length >= limit) {
        refused++
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(Math.ceil(windowMs / 1000)) })
        res.end(JSON.stringify({ error: { message: 'Rate limit reached for requests' } }))
        return
      }
      served.push(now)
      busiest = Math.max(busiest, served.length)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({
        id: 'c', object: 'chat.completion', model: 'gpt-test-2026',
        choices: [{ index: 0, message: { role: 'assistant', content: 'reviewed' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 },
      }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    stats: () => ({ refused, busiest }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

let open: { gateway: Gateway; model: { close(): Promise<void> } } | undefined
afterEach(async () => {
  await open?.gateway.close()
  await open?.model.close()
  open = undefined
})

/** `prs` pull requests at once; the API serves `apiLimit` per 2 s, the config says `configured` per 2 s. */
async function burst(prs: number, apiLimit: number, configured: number) {
  const model = await limitedModel(apiLimit, 2000)
  const state: StateBackend = memoryState({ concurrency: 8, maxQueue: 1000, pollMs: 20 })
  const log = recordingLogger()
  const gateway = await createGateway({
    agent: { runner: 'openai', base_url: model.url, model: 'gpt-test', concurrency: 8, retry: { attempts: 1 } },
    costs: { model_limits: { 'gpt-test': { requests_per_minute: configured, window_seconds: 2 } } },
    platforms: { webhook: { extra: { host: '127.0.0.1', port: 0, rate_limit: 100_000, routes: { pr: { secret: SECRET, events: ['pull_request'], deliver: 'log' } } } } },
  } as never, [definePlugin({ name: 'test-state', setup: () => ({ name: 'test-state', state, logger: log }) })])
  open = { gateway, model }
  const started = performance.now()
  for (let i = 0; i < prs; i++) {
    const res = await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET, `d-${i}`), body })
    expect(res.status).toBe(202)
  }
  let waited = 0
  await expect.poll(async () => {
    const counts = await state.jobs.counts()
    waited = Math.max(waited, counts.queued)
    return counts.done + counts.failed
  }, { timeout: 60_000, interval: 100 }).toBe(prs)
  return { counts: await state.jobs.counts(), seconds: (performance.now() - started) / 1000, stats: model.stats(), log, waited }
}

describe('the model API\'s limits', () => {
  it('a burst of 50 pull requests against an API limited to a fifth of that rate (10 a second, counted over 2 s): no job fails, the limit is never reached', async () => {
    const { counts, seconds, stats, waited } = await burst(50, 20, 20)
    expect(counts).toMatchObject({ done: 50, failed: 0 })
    // The API never had to refuse one: the gateway kept under its 10 a second, together for all 8 workers.
    expect(stats.refused).toBe(0)
    expect(stats.busiest).toBeLessThanOrEqual(20)
    // 50 calls at under 10 a second take more than four seconds.
    expect(seconds).toBeGreaterThan(4)
    // The jobs waited for their turn queued in the store; only the 8 leased ones wait (briefly) in a worker.
    expect(waited).toBeGreaterThanOrEqual(40)
  }, 90_000)

  it('an API that limits harder than configured: its 429s slow the model down instead of failing runs', async () => {
    const { counts, stats } = await burst(20, 8, 20)
    expect(counts).toMatchObject({ done: 20, failed: 0 })
    expect(stats.refused).toBeGreaterThan(0)
    expect(stats.busiest).toBeLessThanOrEqual(8)
  }, 90_000)
})
