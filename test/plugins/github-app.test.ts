/**
 * GitHub App mode with the real Octokit clients against the fake GitHub API: reviews posted as the App (sticky
 * edits included) with tokens down-scoped to the event's repository, a token replaced before it expires, and
 * the startup check of the App's id and key.
 */
import { createHash, generateKeyPairSync } from 'node:crypto'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DeliveryError } from '../../src/core/errors.js'
import type { AgentAnswer, JsonObject } from '../../src/core/types.js'
import { createGithubApp } from '../../src/plugins/github-app/app.js'
import { appCheck } from '../../src/plugins/github-app/check.js'
import { REFRESH_MARGIN_MS } from '../../src/plugins/github-app/token-cache.js'
import { githubCommentDelivery } from '../../src/plugins/targets/github-comment/github-comment-target.js'
import { fakeClock } from '../../src/testing/clock.js'
import { deliveryContext } from '../../src/testing/context.js'
import { startFakeGithub, type FakeGithub } from '../../src/dev/github/server.js'
import { fakeGithubApp, type FakeGithubApp } from '../fixtures/fake-github-app.js'

const REPO = 'octo-org/hello-world'
const REPO_ID = 1296269
const OTHER = 'octo-org/other'
const OTHER_ID = 7777
const INSTALLATION = 42
const HEAD = createHash('sha1').update('head').digest('hex')

const clock = fakeClock(Date.UTC(2026, 10, 24, 12, 0))
let app: FakeGithubApp
let api: FakeGithub
beforeAll(async () => {
  app = fakeGithubApp({ clock: clock.now })
  app.install(INSTALLATION, { [REPO_ID]: REPO, [OTHER_ID]: OTHER })
  api = await startFakeGithub({ extensions: [app] })
})
afterAll(() => api.close())

let pr = 0
const newPr = () => {
  pr += 1
  api.setHead(REPO, pr, HEAD)
  return pr
}
const payload = (number: number, repositoryId = REPO_ID): JsonObject => ({
  action: 'synchronize',
  number,
  installation: { id: INSTALLATION },
  repository: { id: repositoryId, full_name: REPO },
  pull_request: { number, head: { sha: HEAD } },
})
const answer = (number: number, text: string, more: Partial<AgentAnswer> = {}): AgentAnswer => ({
  route: 'pr-review', event: 'pull_request', deliveryId: `d-${number}-${text.length}`, text, extra: { repo: REPO, pr_number: String(number) }, payload: payload(number), ...more,
})
const githubApp = (options: { appId?: number; pem?: string } = {}) =>
  createGithubApp({ appId: options.appId ?? app.appId, privateKey: { pem: options.pem ?? app.privateKey }, baseUrl: api.url, clock: clock.now })

describe('github_comment as a GitHub App', () => {
  it('posts a sticky review as my-app[bot] and edits it in place, with one token scoped to the repository and the delivery permissions', async () => {
    const number = newPr()
    const mintsBefore = app.mints().length
    const target = githubCommentDelivery({ app: githubApp(), mode: 'sticky', checkHead: true, clock: clock.now })
    const first = await target.deliver(answer(number, 'First review.'), deliveryContext())
    const second = await target.deliver(answer(number, 'Second review.'), deliveryContext())

    const writes = api.writes().filter((w) => w.number === number)
    expect(writes.map((w) => [w.kind, w.login])).toEqual([['created', 'hookpilot-review[bot]'], ['edited', 'hookpilot-review[bot]']])
    expect(writes[1]?.body).toContain('Second review.')
    expect(api.comments(REPO, number)).toHaveLength(1)
    const url = `https://github.com/${REPO}/pull/${number}#issuecomment-${writes[0]?.id}`
    expect([first, second]).toEqual([{ posted: true, url }, { posted: true, url }])
    // One mint for both deliveries (cached), down-scoped in the request itself.
    expect(app.mints().slice(mintsBefore)).toEqual([
      expect.objectContaining({ installationId: INSTALLATION, repositoryIds: [REPO_ID], permissions: { issues: 'write', pull_requests: 'read' } }),
    ])
    expect(api.requests().filter((r) => r.startsWith('POST /graphql'))).toEqual([]) // REST only: gh was never run
  })

  it('mints a new token once the cached one is within the margin of its expiry, and never sends an expired one', async () => {
    const number = newPr()
    const target = githubCommentDelivery({ app: githubApp(), clock: clock.now })
    const before = app.mints().length
    await target.deliver(answer(number, 'One.'), deliveryContext())
    const [firstMint] = app.mints().slice(before)
    // Just outside the margin: the token is still used.
    clock.advance((firstMint?.expiresAt ?? 0) - REFRESH_MARGIN_MS - 1000 - clock.now())
    await target.deliver(answer(number, 'Two.'), deliveryContext())
    expect(app.mints().length - before).toBe(1)
    // Past it (and past the expiry itself, when GitHub refuses the old token): a fresh one.
    clock.advance((firstMint?.expiresAt ?? 0) + 1000 - clock.now())
    expect(app.account(firstMint?.token ?? '')).toBe('expired')
    await target.deliver(answer(number, 'Three.'), deliveryContext())
    const mints = app.mints().slice(before)
    expect(mints).toHaveLength(2)
    expect(mints[1]?.token).not.toBe(firstMint?.token)
    expect(api.comments(REPO, number).map((c) => c.body)).toEqual(['One.', 'Two.', 'Three.'])
    expect(app.refusals()).toEqual([])
  })

  it("a token for one repository cannot touch another; an event without an installation posts nothing and says why", async () => {
    const number = newPr()
    const token = await githubApp().installationToken({ installationId: INSTALLATION, repositoryId: OTHER_ID }, { issues: 'write' })
    const res = await fetch(`${api.url}/repos/${REPO}/issues/${number}/comments`, { method: 'POST', headers: { authorization: `token ${token.token}` }, body: JSON.stringify({ body: 'x' }) })
    expect(res.status).toBe(404)
    const target = githubCommentDelivery({ app: githubApp(), clock: clock.now })
    const error = await target.deliver(answer(number, 'Review.', { payload: { number } }), deliveryContext()).then(() => undefined, (e: unknown) => e)
    expect(String(error)).toContain('the event names no GitHub App installation (payload.installation.id)')
    expect(api.comments(REPO, number)).toEqual([])
  })
})

describe('github_comment as a GitHub App in sticky mode, with GitHub out of reach or the event not the App\'s', () => {
  const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e)

  it('a network error in any call (the App\'s identity first) is a passing failure the delivery schedule retries', async () => {
    const number = newPr()
    // A name that never resolves (RFC 2606): every call fails with getaddrinfo ENOTFOUND, as with GitHub out of reach.
    const away = createGithubApp({ appId: app.appId, privateKey: { pem: app.privateKey }, baseUrl: 'http://api.github.invalid', clock: clock.now })
    for (const options of [{ mode: 'sticky' as const }, { mode: 'sticky' as const, checkHead: true }, { mode: 'new' as const }]) {
      const error = await failureOf(githubCommentDelivery({ app: away, clock: clock.now, ...options }).deliver(answer(number, 'Review.'), deliveryContext()))
      expect(DeliveryError.is(error)).toBe(true)
      expect((error as DeliveryError).retryable).toBe(true)
      expect(String(error)).toMatch(/could not reach GitHub .*ENOTFOUND/)
    }
  })

  it('an event without an installation says so in sticky mode too, before any call, and is not retried', async () => {
    const number = newPr()
    const away = createGithubApp({ appId: app.appId, privateKey: { pem: app.privateKey }, baseUrl: 'http://api.github.invalid', clock: clock.now })
    for (const github of [githubApp(), away]) {
      const error = await failureOf(githubCommentDelivery({ app: github, mode: 'sticky', clock: clock.now }).deliver(answer(number, 'Review.', { payload: { number } }), deliveryContext()))
      expect(String(error)).toContain('the event names no GitHub App installation (payload.installation.id)')
      expect((error as DeliveryError).retryable).toBe(false)
    }
    expect(api.comments(REPO, number)).toEqual([])
  })
})

describe('the startup check of the App (GET /app with its JWT)', () => {
  it('passes a matching id and key', async () => {
    expect(await appCheck(githubApp(), 'platforms.github_app.private_key')).toEqual([])
  })

  it('says clearly when the id or the key is wrong, or the key cannot be read; GitHub out of reach is only a warning', async () => {
    const wrongId = await appCheck(githubApp({ appId: 1 }), 'platforms.github_app.private_key')
    expect(wrongId).toEqual([{ severity: 'problem', path: 'platforms.github_app.app_id', message: expect.stringContaining('GitHub refused the App\'s JWT (GET /app answered 404: Integration not found') }])
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()
    const wrongKey = await appCheck(githubApp({ pem: otherKey }), 'platforms.github_app.private_key')
    expect(wrongKey[0]?.message).toContain(`app_id ${app.appId} and the private key do not belong together`)
    expect(wrongKey[0]?.message).not.toContain('BEGIN')

    const dir = mkdtempSync(join(tmpdir(), 'hookpilot-app-'))
    writeFileSync(join(dir, 'not-a-key.pem'), 'hello')
    const file = (path: string) => appCheck(createGithubApp({ appId: app.appId, privateKey: { file: path }, baseUrl: api.url }), 'platforms.github_app.private_key_file')
    expect(await file(join(dir, 'missing.pem'))).toEqual([{ severity: 'problem', path: 'platforms.github_app.private_key_file', message: expect.stringContaining('could not be read') }])
    expect((await file(join(dir, 'not-a-key.pem')))[0]?.message).toContain('holds not a PEM private key')
  })

  it('names the key file once, says "an EC key", and warns of a key file others can read (mode 0644)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookpilot-app-'))
    const ecFile = join(dir, 'ec.pem')
    writeFileSync(ecFile, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { mode: 0o600 })
    const check = (path: string) => appCheck(createGithubApp({ appId: app.appId, privateKey: { file: path }, baseUrl: api.url }), 'platforms.github_app.private_key_file', { file: path })
    const [ec] = await check(ecFile)
    expect(ec?.message).toContain(`the file ${ecFile} holds an EC key`)
    expect(ec?.message.split(ecFile)).toHaveLength(2)
    expect(ec?.message).not.toContain('private_key_file (')
    expect((await check(join(dir, 'missing.pem')))[0]?.message.split(join(dir, 'missing.pem'))).toHaveLength(2)

    const rsaFile = join(dir, 'app.pem')
    writeFileSync(rsaFile, app.privateKey, { mode: 0o600 })
    expect(await check(rsaFile)).toEqual([])
    chmodSync(rsaFile, 0o644)
    expect(await check(rsaFile)).toEqual([{ severity: 'warning', path: 'platforms.github_app.private_key_file', message: expect.stringContaining(`readable by others than its owner (mode 0644)`) }])

    const away = createGithubApp({ appId: app.appId, privateKey: { pem: app.privateKey }, baseUrl: 'http://127.0.0.1:9' })
    expect(await appCheck(away, 'platforms.github_app.private_key')).toEqual([{ severity: 'warning', path: 'platforms.github_app', message: expect.stringContaining('its id and key are unchecked') }])
  })
})
