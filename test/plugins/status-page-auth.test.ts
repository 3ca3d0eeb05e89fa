/**
 * The status page's session and login, on its endpoints with a fake clock (issue 38, item 5): a session cookie
 * carries its issue time, which the server checks (12 hours), and repeated failed logins or bearer tokens from
 * one client are slowed down instead of answered at full speed.
 */
import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { GatewayResponse } from '../../src/core/http/responses.js'
import type { Endpoint, EndpointRequest } from '../../src/core/http/endpoint.js'
import { statusPage } from '../../src/plugins/status-page/status-page.js'

const TOKEN = 'status-token-0123456789abcdef'
const HOUR = 60 * 60_000

function page() {
  let now = Date.UTC(2026, 10, 27, 9, 0)
  const { endpoints } = statusPage({ token: TOKEN, jobs: () => undefined, now: () => now })
  const at = (path: string): Endpoint => {
    const endpoint = endpoints.find((e) => e.path === path)
    if (!endpoint) throw new Error(`no endpoint ${path}`)
    return endpoint
  }
  const call = (path: string, req: Partial<EndpointRequest>): Promise<GatewayResponse> =>
    at(path).handle({ method: 'GET', headers: {}, ...req })
  const login = (token: string, client = '192.0.2.1') =>
    call('/status/login', { method: 'POST', headers: { host: 'localhost' }, body: Buffer.from(`token=${encodeURIComponent(token)}`), clientAddress: client })
  /** 401 without a session; 503 with one (the page has no jobs view here), never 200 or 401 by mistake. */
  const jobsWith = async (headers: Record<string, string>, client = '192.0.2.1') => (await call('/status/jobs.json', { headers, clientAddress: client })).status
  const cookieOf = (res: GatewayResponse) => /^hookpilot_status=([^;]+)/.exec(res.headers['set-cookie'] ?? '')?.[1] ?? ''
  return { login, jobsWith, cookieOf, advance: (ms: number) => void (now += ms) }
}

describe('status page session', () => {
  it('a cookie carries its issue time, checked by the server: good for 12 hours, then refused; each login gets its own', async () => {
    const p = page()
    const first = await p.login(TOKEN)
    expect(first.status).toBe(303)
    const session = p.cookieOf(first)
    expect(session).not.toBe('')
    expect(session).not.toContain(TOKEN)
    expect(await p.jobsWith({ cookie: `hookpilot_status=${session}` })).toBe(503)
    p.advance(HOUR)
    expect(p.cookieOf(await p.login(TOKEN))).not.toBe(session) // a later login, a later issue time
    p.advance(11 * HOUR - 1_000)
    expect(await p.jobsWith({ cookie: `hookpilot_status=${session}` })).toBe(503) // 11 h 59 m 59 s old
    p.advance(2_000)
    expect(await p.jobsWith({ cookie: `hookpilot_status=${session}` })).toBe(401) // past 12 hours: the server refuses it
    // The cookie every login used to get (an HMAC of the token and a fixed string), kept by a browser: refused.
    const fixed = createHmac('sha256', TOKEN).update('hookpilot status page session').digest('base64url')
    expect(await p.jobsWith({ cookie: `hookpilot_status=${fixed}` })).toBe(401)
    // Its issue time moved forward by hand: the MAC no longer matches.
    const [issued, mac] = session.split('.')
    expect(await p.jobsWith({ cookie: `hookpilot_status=${Number(issued) + 13 * 3600}.${mac}` })).toBe(401)
  })
})

describe('status page failed logins', () => {
  it('300 wrong tokens in a row are not answered at full speed: after a few, 429 with Retry-After, doubling, the right token included', async () => {
    const p = page()
    const statuses: number[] = []
    for (let i = 0; i < 300; i++) statuses.push((await p.login(`wrong-${i}-0123456789abcdef`)).status)
    const checked = statuses.filter((s) => s === 401).length
    expect(checked).toBeLessThanOrEqual(5)
    expect(statuses.slice(checked).every((s) => s === 429)).toBe(true)
    const held = await p.login(TOKEN) // during the wait even the right token is not checked: guessing gains nothing
    expect(held.status).toBe(429)
    const wait = Number(held.headers['retry-after'])
    expect(wait).toBeGreaterThan(0)
    expect(held.body).toMatch(/Too many wrong tokens/)
    // Another client is not held back by this one.
    expect((await p.login(TOKEN, '198.51.100.7')).status).toBe(303)
    // Once the wait is over, one more try is checked; a wrong one doubles the wait.
    p.advance(wait * 1_000)
    expect((await p.login('wrong-again-0123456789abcdef')).status).toBe(401)
    const next = await p.login(TOKEN)
    expect(next.status).toBe(429)
    expect(Number(next.headers['retry-after'])).toBeGreaterThanOrEqual(2 * wait)
    // The right token after the wait signs in and forgives the failures.
    p.advance(Number(next.headers['retry-after']) * 1_000)
    expect((await p.login(TOKEN)).status).toBe(303)
    expect((await p.login('wrong-after-0123456789abcdef')).status).toBe(401)
  })

  it('wrong bearer tokens count too: the API cannot be guessed at full speed either', async () => {
    const p = page()
    const statuses: number[] = []
    for (let i = 0; i < 50; i++) statuses.push(await p.jobsWith({ authorization: `Bearer wrong-${i}-0123456789abcdef` }))
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5)
    expect(statuses.at(-1)).toBe(429)
    expect(await p.jobsWith({ authorization: `Bearer ${TOKEN}` })).toBe(429)
    expect(await p.jobsWith({ authorization: `Bearer ${TOKEN}` }, '198.51.100.7')).toBe(503)
  })
})
