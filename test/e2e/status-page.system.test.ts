/**
 * The status page in a real headless Chromium (Debian's chromium, driven by playwright-core): it refuses without
 * the token, shows a running job and a failed job's reason, updates when a job finishes without a reload, and a
 * job field holding markup renders as text under its Content-Security-Policy; a job's pull request is a link
 * (rel="noopener noreferrer"), and a hostile `javascript:` one, from a payload or a stored record, never is.
 */
import { createHmac } from 'node:crypto'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { SECRET, testGateway, type TestGateway } from '../fixtures/gateway.js'

const TOKEN = 'status-token-0123456789abcdef'
const HOSTILE = '<script>window.__pwned = true</script><img src=x onerror="window.__pwned = true">'

let browser: Browser
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: process.env['CHROMIUM'] ?? '/usr/bin/chromium', args: ['--no-sandbox'] })
})
afterAll(async () => {
  await browser?.close()
})
let gateway: TestGateway | undefined
afterEach(async () => {
  await gateway?.gateway.close()
  gateway = undefined
})

const PR_LINK = 'https://github.com/octo-org/hello-world/pull/1'
const HOSTILE_LINK = 'javascript:window.__pwned = true'

/** Posts one signed pull_request delivery, whose pull request's page is `link`. */
async function deliver(url: string, id: string, link = PR_LINK): Promise<void> {
  const body = JSON.stringify({ action: 'opened', number: 1, pull_request: { title: 'x', html_url: link } })
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`
  const res = await fetch(`${url}/webhooks/pr`, {
    method: 'POST', body,
    headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': id, 'x-hub-signature-256': signature },
  })
  expect(res.status).toBe(202)
}

describe('status page (headless Chromium)', () => {
  it('refuses without the token, shows running and failed jobs, updates in place, and renders markup as text', async () => {
    const held: Array<() => void> = []
    gateway = await testGateway({
      config: { status_page: { enabled: true, token: TOKEN } } as never,
      agent: async (input) => {
        if (input.deliveryId === 'slow') await new Promise<void>((resolve) => held.push(resolve))
        if (input.deliveryId === 'broken') return { ok: false, reason: `the agent said ${HOSTILE}`, retryable: false }
        return { ok: true, text: 'fine' }
      },
    })
    const { url } = await gateway.gateway.listen({ port: 0 })

    // Without the token: the data and the script are refused, and the page is only the login form.
    expect((await fetch(`${url}/status/jobs.json`)).status).toBe(401)
    expect((await fetch(`${url}/status/jobs.json`, { headers: { authorization: 'Bearer not-the-token-0123456789' } })).status).toBe(401)
    expect((await fetch(`${url}/status/jobs.json`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200)
    const page = await browser.newPage()
    page.setDefaultTimeout(8_000)
    const anonymous = await page.goto(`${url}/status`)
    expect(anonymous?.status()).toBe(401)
    expect(anonymous?.headers()['content-security-policy']).toContain("script-src 'self'")
    expect(await page.locator('#running').count()).toBe(0)
    await page.fill('#token', 'wrong-token-0123456789')
    await page.click('button[type=submit]')
    await expect.poll(() => page.locator('[role=alert]').textContent()).toContain('not the status token')

    await deliver(url, 'broken', HOSTILE_LINK)
    await deliver(url, 'slow')
    // A record stored by other code with a hostile link: the page checks the link again and shows none.
    const payload = { action: 'opened', number: 2 }
    await gateway.state.queue.add({
      route: 'pr', event: 'pull_request', deliveryId: 'stored', dedupKey: undefined, payload, payloadJson: JSON.stringify(payload),
      receivedAt: gateway.clock.now(), link: HOSTILE_LINK,
    })
    await expect.poll(async () => (await gateway?.state.jobs.counts())?.running).toBe(1)

    // The login sets an HttpOnly, SameSite=Strict cookie; the URL never holds the token.
    await page.fill('#token', TOKEN)
    await page.click('button[type=submit]')
    await page.waitForURL(`${url}/status`)
    expect(page.url()).not.toContain(TOKEN)
    const [cookie] = await page.context().cookies()
    expect(cookie).toMatchObject({ name: 'hookpilot_status', httpOnly: true, sameSite: 'Strict' })
    expect(cookie?.value).not.toContain(TOKEN)

    const running = page.locator('#running tbody tr')
    await expect.poll(() => running.allTextContents()).toEqual([expect.stringContaining('slow')])
    // The running job's pull request is a link, opened without the page as its opener or referrer.
    const prLink = page.locator('#running tbody tr a')
    expect(await prLink.getAttribute('href')).toBe(PR_LINK)
    expect(await prLink.getAttribute('rel')).toBe('noopener noreferrer')
    expect(await prLink.textContent()).toBe('github.com/octo-org/hello-world/pull/1')
    const failed = page.locator('#failed tbody tr')
    await expect.poll(() => failed.allTextContents()).toEqual([expect.stringContaining(`the agent said ${HOSTILE}`)])
    // The hostile reason is text: no element was made from it, no script of it ran.
    expect(await page.locator('#failed tbody script, #failed tbody img, #finished tbody script').count()).toBe(0)
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined()
    // Neither hostile link became one: the failed job and the stored one are listed, with no link at all.
    await expect.poll(() => page.locator('#finished tbody tr', { hasText: 'stored' }).count()).toBe(1)
    expect(await page.locator('#finished tbody tr', { hasText: 'broken' }).locator('a').count()).toBe(0)
    expect(await page.locator('#finished tbody tr', { hasText: 'stored' }).locator('a').count()).toBe(0)
    expect(await page.locator('a[href^="javascript" i]').count()).toBe(0)
    expect(await page.content()).not.toContain('javascript:')

    // The running job finishes: the page shows it without a reload (the same document, refreshed by its script).
    await page.evaluate(() => {
      ;(globalThis as unknown as { __sameDocument: boolean }).__sameDocument = true
    })
    for (const release of held.splice(0)) release()
    await expect.poll(() => running.count()).toBe(0)
    await expect.poll(() => page.locator('#finished tbody tr', { hasText: 'slow' }).allTextContents()).toEqual([expect.stringContaining('done')])
    expect(await page.locator('#finished tbody tr', { hasText: 'slow' }).locator('a').getAttribute('href')).toBe(PR_LINK)
    expect(await page.evaluate(() => (globalThis as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true)
    await page.close()
  }, 60_000)

  it('is off unless enabled: /status is then no path of the gateway', async () => {
    gateway = await testGateway()
    expect((await gateway.gateway.handle({ method: 'GET', path: '/status' })).status).toBe(404)
  })
})
