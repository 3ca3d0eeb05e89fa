/**
 * A GitHub App mints installation tokens only for deliveries verified with its own webhook secret (issue 38,
 * item 6): a route that also takes another sender's secret (a repository webhook's) would let that secret's
 * holder sign a payload naming any installation and repository, and have the App mint a token for it. Through a
 * real gateway: the recording agent sees the environment the App gives it, github_comment posts (or not) as the
 * App against the fake GitHub API.
 */
import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatewayPlugin } from '../../src/core/plugin-api/gateway-plugin.js'
import { testGateway, type TestGateway } from '../fixtures/gateway.js'
import { startFakeGithub, type FakeGithub } from '../../src/dev/github/server.js'
import { fakeGithubApp, type FakeGithubApp } from '../fixtures/fake-github-app.js'

const REPO = 'octo-org/hello-world'
const REPO_ID = 1296269
const APP_SECRET = 'the-apps-own-webhook-secret-0123'
const HOOK_SECRET = 'a-repository-webhooks-secret-0123'

let app: FakeGithubApp
let api: FakeGithub
beforeAll(async () => {
  app = fakeGithubApp()
  app.install(42, { [REPO_ID]: REPO })
  api = await startFakeGithub({ extensions: [app] })
})
afterAll(() => api.close())

/** The GH_TOKEN each run was given: a token, null (removed), or undefined (left as the runner's). */
const tokens: (string | null | undefined)[] = []
const envRecorder: GatewayPlugin = {
  name: 'env-recorder',
  agentRunner: { name: 'env', run: async (_input, ctx) => (tokens.push(ctx.env?.['GH_TOKEN']), { ok: true, text: 'Review.' }) },
}

async function gateway(routes: Record<string, { secret: string | string[] }>, webhookSecret?: string): Promise<TestGateway & { url: string }> {
  const t = await testGateway({
    plugins: [envRecorder],
    config: {
      agent: { runner: 'env' },
      platforms: {
        github_app: { app_id: app.appId, private_key: app.privateKey, api_url: api.url, ...(webhookSecret === undefined ? {} : { webhook_secret: webhookSecret }) },
      },
    } as never,
    routes: Object.fromEntries(Object.entries(routes).map(([name, r]) => [name, {
      ...r, events: ['pull_request'], deliver: 'github_comment', deliver_extra: { repo: '{repository.full_name}', pr_number: '{number}' },
    }])),
  })
  const { url } = await t.gateway.listen({ port: 0 })
  return { ...t, url }
}

let pr = 100
/** A pull request event naming installation 42 and the repository, signed with `secret`. */
async function deliver(url: string, route: string, secret: string): Promise<number> {
  pr += 1
  api.setHead(REPO, pr, 'a'.repeat(40))
  const body = JSON.stringify({ action: 'opened', number: pr, installation: { id: 42 }, repository: { id: REPO_ID, full_name: REPO }, pull_request: { number: pr } })
  const res = await fetch(`${url}/webhooks/${route}`, {
    method: 'POST', body,
    headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': `d-${pr}`, 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` },
  })
  expect(res.status).toBe(202)
  return pr
}

describe('installation tokens only for deliveries verified with the App\'s own webhook secret', () => {
  it('a route that also takes a repository webhook\'s secret gets no token: its agent runs without one, and nothing is posted as the App', async () => {
    const t = await gateway({ review: { secret: APP_SECRET }, mixed: { secret: [APP_SECRET, HOOK_SECRET] } }, APP_SECRET)
    try {
      const mintsBefore = app.mints().length
      const forged = await deliver(t.url, 'mixed', HOOK_SECRET)
      await t.idle()
      expect(tokens.at(-1)).toBeNull()
      expect(app.mints().length).toBe(mintsBefore)
      expect(api.comments(REPO, forged)).toEqual([])
      expect(t.log.text()).toMatch(/not verified with the App's own webhook secret/)
      // The App's own route: the token is minted and the review posted as the App.
      const own = await deliver(t.url, 'review', APP_SECRET)
      await t.idle()
      expect(tokens.at(-1)).toEqual(expect.any(String))
      expect(api.comments(REPO, own)).toHaveLength(1)
      expect(app.mints().length).toBeGreaterThan(mintsBefore)
    } finally {
      await t.gateway.close()
    }
  })

  it('without webhook_secret, a route of one secret is the App\'s and a route of several is not', async () => {
    const t = await gateway({ review: { secret: APP_SECRET }, mixed: { secret: [APP_SECRET, HOOK_SECRET] } })
    try {
      const mintsBefore = app.mints().length
      const forged = await deliver(t.url, 'mixed', HOOK_SECRET)
      await t.idle()
      expect(tokens.at(-1)).toBeNull()
      expect(api.comments(REPO, forged)).toEqual([])
      expect(app.mints().length).toBe(mintsBefore)
      const own = await deliver(t.url, 'review', APP_SECRET)
      await t.idle()
      expect(tokens.at(-1)).toEqual(expect.any(String))
      expect(api.comments(REPO, own)).toHaveLength(1)
    } finally {
      await t.gateway.close()
    }
  })
})
