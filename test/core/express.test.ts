/**
 * Embedded in a real Express app, as users do it: before the JSON parser (the normal way), after
 * `express.raw()` (the raw body a framework kept is verified as it is), and after `express.json()` (the raw
 * bytes are gone: an immediate error that says what to change, never a hang).
 */
import express from 'express'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { githubHeaders, githubPayload } from '../fixtures/github.js'
import { SECRET, testGateway, type TestGateway } from '../fixtures/gateway.js'

let current: { t: TestGateway; server: Server } | undefined
afterEach(async () => {
  if (!current) return
  await new Promise((resolve) => current?.server.close(resolve))
  await current.t.gateway.close()
  current = undefined
})

async function app(build: (app: express.Express, t: TestGateway) => void): Promise<{ url: string; t: TestGateway }> {
  const t = await testGateway()
  const application = express()
  build(application, t)
  application.get('/app', (_req, res) => void res.json({ app: true }))
  const server = await new Promise<Server>((resolve) => {
    const s = application.listen(0, '127.0.0.1', () => resolve(s))
  })
  current = { t, server }
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, t }
}

const body = githubPayload('pull_request', 'opened')
const post = (url: string, id: string) => fetch(`${url}/webhooks/pr`, { method: 'POST', headers: githubHeaders('pull_request', body, SECRET, id), body })

describe('Express', () => {
  it('mounted before the JSON parser: webhooks are accepted, other paths go on to the app', async () => {
    const { url, t } = await app((a, t) => {
      a.use(t.gateway.handler)
      a.use(express.json())
    })
    expect((await post(url, 'x-1')).status).toBe(202)
    expect(await (await fetch(`${url}/app`)).json()).toEqual({ app: true })
    await t.answered(1)
  })

  it('after express.raw(): the raw body the framework kept is verified and accepted', async () => {
    const { url, t } = await app((a, t) => {
      a.use(express.raw({ type: () => true, limit: '2mb' }))
      a.use(t.gateway.handler)
    })
    expect((await post(url, 'x-2')).status).toBe(202)
    const forged = await fetch(`${url}/webhooks/pr`, { method: 'POST', headers: githubHeaders('pull_request', Buffer.from('{}'), 'wrong', 'x-3'), body })
    expect(forged.status).toBe(401)
    await t.answered(1)
  })

  it('after express.json(): an immediate 500 that says to mount the gateway first, and a log line; never a hang', async () => {
    const { url, t } = await app((a, t) => {
      a.use(express.json())
      a.use(t.gateway.handler)
    })
    const res = await post(url, 'x-4')
    expect(res.status).toBe(500)
    expect((await res.json() as { error: string }).error).toContain('mount the hookpilot handler before express.json()')
    expect(t.log.lines).toContainEqual(expect.objectContaining({ level: 'error', message: expect.stringContaining('already parsed'), fields: { route: 'pr' } }))
    expect(t.runs).toHaveLength(0)
  })
})
