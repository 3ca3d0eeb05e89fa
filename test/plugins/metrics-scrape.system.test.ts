/**
 * Prometheus metrics, scraped for real (the prometheus binary, started by the test): after a known mix of
 * accepted, duplicate, forged and unknown-route requests, a real Prometheus reads exactly those counts; a
 * thousand made-up routes add no series.
 */
import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { githubHeaders, githubPayload } from '../fixtures/github.js'
import { SECRET, testGateway, type TestGateway } from '../fixtures/gateway.js'
import { startPrometheus, type Prometheus } from '../fixtures/prometheus.js'

const TOKEN = 'scrape-token-0123456789'
const body = githubPayload('pull_request', 'opened')
let gateway: TestGateway | undefined
let prometheus: Prometheus | undefined
afterEach(async () => {
  await prometheus?.stop()
  await gateway?.gateway.close()
  gateway = prometheus = undefined
})

async function started() {
  gateway = await testGateway({ config: { metrics: { enabled: true, token: TOKEN } } as never })
  const { url } = await gateway.gateway.listen({ port: 0 })
  const post = (path: string, headers: Record<string, string>) => fetch(`${url}${path}`, { method: 'POST', headers, body })
  return { url, post, t: gateway }
}

describe('metrics', () => {
  it('a real Prometheus scrape reads the exact counts of a known mix of requests, runs and deliveries', async () => {
    const { url, post, t } = await started()
    for (const id of ['m-1', 'm-2', 'm-3']) expect((await post('/webhooks/pr', githubHeaders('pull_request', body, SECRET, id))).status).toBe(202)
    for (const id of ['m-1', 'm-2']) expect((await post('/webhooks/pr', githubHeaders('pull_request', body, SECRET, id))).status).toBe(200)
    for (let i = 0; i < 4; i++) expect((await post('/webhooks/pr', githubHeaders('pull_request', body, 'forged', `f-${i}`))).status).toBe(401)
    // A thousand made-up route names: one series, route="_unknown", not a thousand.
    for (let i = 0; i < 1000; i++) expect((await post(`/webhooks/${randomUUID()}`, {})).status).toBe(404)
    await t.answered(3)
    await t.idle()

    prometheus = await startPrometheus(new URL(url).host, '/metrics', TOKEN)
    const p = prometheus
    await expect.poll(() => p.value('hookpilot_webhook_requests_total{route="pr",status="202"}'), { timeout: 15_000, interval: 250 }).toBe(3)
    expect(await p.value('hookpilot_webhook_requests_total{route="pr",status="200"}')).toBe(2)
    expect(await p.value('hookpilot_webhook_requests_total{route="pr",status="401"}')).toBe(4)
    expect(await p.value('hookpilot_webhook_requests_total{route="_unknown",status="404"}')).toBe(1000)
    expect(await p.value('count(hookpilot_webhook_requests_total)')).toBe(4)
    expect(await p.value('hookpilot_agent_runs_total{route="pr",outcome="ok"}')).toBe(3)
    expect(await p.value('hookpilot_agent_run_duration_seconds_count{route="pr"}')).toBe(3)
    expect(await p.value('hookpilot_deliveries_total{target="log",outcome="delivered"}')).toBe(3)
    expect(await p.value('hookpilot_jobs{state="queued"}')).toBe(0)
    expect(await p.value('hookpilot_store_errors_total')).toBe(0)
    expect(await p.value('hookpilot_process_resident_memory_bytes')).toBeGreaterThan(0)
    expect(await p.value('up{job="hookpilot"}')).toBe(1)
  }, 60_000)
})
