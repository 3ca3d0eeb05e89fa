/**
 * The model API's limits kept (issue 35, item 3): a burst of pull requests against an OpenAI-compatible API
 * (node:http) that counts every request over a rolling window and answers `429` with `Retry-After` past its
 * limit. The gateway paces every call through the state store's notes, so the API's limit is never reached
 * and no job fails; when the API limits harder than configured, its 429s slow the model down instead of
 * failing runs. Jobs that must wait go back to the queue (the store), not a worker's memory.
 */
import { mkdtemp } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createGateway, definePlugin, type Gateway } from '../../src/index.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { sqliteState } from '../../src/plugins/state/sqlite/sqlite-state.js'
import { createModelLimits } from '../../src/core/dispatch/model-limits.js'
import { silentLogger } from '../../src/core/log/logger.js'
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

describe('the pace in the store', () => {
  it('two instances on one SQLite file share one pace: together they never send more than the limit in any window', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'hookpilot-limits-')), 'state.db')
    const [a, b] = [sqliteState({ path, concurrency: 1, maxQueue: 10 }), sqliteState({ path, concurrency: 1, maxQueue: 10 })]
    await a.start?.({ log: silentLogger })
    await b.start?.({ log: silentLogger })
    try {
      // 10 requests a second, paced 10 % under: one every 111 ms, whichever instance sends it.
      const limits = { m: { requestsPerWindow: 10, windowMs: 1000 } }
      const instances = [a, b].map((state) => createModelLimits(state.notes!, limits, Date.now))
      const sent: number[] = []
      const signal = new AbortController().signal
      await Promise.all(Array.from({ length: 14 }, (_, i) => instances[i % 2]!.take('m', 0, signal).then(() => void sent.push(Date.now()))))
      sent.sort((x, y) => x - y)
      for (let i = 0; i + 10 < sent.length; i++) expect(sent[i + 10]! - sent[i]!).toBeGreaterThan(1000)
    } finally {
      await a.close?.()
      await b.close?.()
    }
  })

  it('tokens are booked by the estimate before a call and corrected by what it used; a 429 pauses the model for its Retry-After', async () => {
    let now = 1_000_000
    const notes = memoryState({ concurrency: 1, maxQueue: 10 }).notes!
    // 900 tokens a minute, paced at 810: 405 tokens hold the next call back 30 s.
    const limits = createModelLimits(notes, { m: { tokensPerWindow: 900, windowMs: 60_000 } }, () => now)
    const signal = new AbortController().signal
    expect(limits.limited('m')).toBe(true)
    expect(limits.limited('unlimited')).toBe(false)
    await limits.take('m', 405, signal)
    expect(await limits.wait('m')).toBeCloseTo(30_000, 0)
    // The call used 405 more than estimated: the next waits 60 s; 810 fewer gives the rest back, never the past.
    await limits.used('m', 405)
    expect(await limits.wait('m')).toBeCloseTo(60_000, 0)
    await limits.used('m', -2000)
    expect(await limits.wait('m')).toBe(0)
    await limits.slowDown('m', 20_000)
    expect(await limits.wait('m')).toBe(20_000)
    now += 20_000
    expect(await limits.wait('m')).toBe(0)
  })
})
