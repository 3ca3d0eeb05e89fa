/**
 * Prometheus metrics, as the endpoint serves them: the token guards it, and it is off unless enabled. A real
 * Prometheus scraping exact counts is metrics-scrape.system.test.ts (it needs the prometheus binary).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { testGateway, type TestGateway } from '../fixtures/gateway.js'

const TOKEN = 'scrape-token-0123456789'
let gateway: TestGateway | undefined
afterEach(async () => {
  await gateway?.gateway.close()
  gateway = undefined
})

async function started() {
  gateway = await testGateway({ config: { metrics: { enabled: true, token: TOKEN } } as never })
  const { url } = await gateway.gateway.listen({ port: 0 })
  return { url }
}

describe('metrics', () => {
  it('without the bearer token a scrape is 401; with it, the exposition format', async () => {
    const { url } = await started()
    const anonymous = await fetch(`${url}/metrics`)
    expect([anonymous.status, anonymous.headers.get('www-authenticate')]).toEqual([401, 'Bearer'])
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401)
    const scrape = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(scrape.status).toBe(200)
    expect(scrape.headers.get('content-type')).toContain('text/plain')
    expect(await scrape.text()).toContain('# TYPE hookpilot_webhook_requests_total counter')
  })

  it('is off unless enabled: /metrics is then no path of the gateway', async () => {
    gateway = await testGateway()
    const res = await gateway.gateway.handle({ method: 'GET', path: '/metrics' })
    expect(res.status).toBe(404)
  })
})
