/**
 * The fake GitHub's repository areas over real HTTP: a file at a commit through the contents API in GitHub's shape
 * (base64 in lines of 60, `encoding: none` past 1 MB, 404 when absent), a pull request's details, reactions (201
 * for a new one, 200 for the same one again) and a collaborator's permission.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { startFakeGithub, type FakeGithub } from '../../src/dev/github/server.js'

const REPO = 'acme/gateway'
const BASE = 'b'.repeat(40)

let github: FakeGithub
beforeEach(async () => {
  github = await startFakeGithub()
  github.setHead(REPO, 7, 'a'.repeat(40))
})
afterEach(async () => github.close())

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${github.url}${path}`, {
    method,
    headers: { authorization: `token ${github.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

it('serves a file at a commit in base64, and 404 at another commit', async () => {
  const text = `filters:\n  skip_drafts: true\n# ${'é'.repeat(40)}\n`
  github.state.repository.setContent(REPO, BASE, '.hookpilot.yml', text)
  const found = await call('GET', `/repos/${REPO}/contents/.hookpilot.yml?ref=${BASE}`)
  expect(found.status).toBe(200)
  expect(found.json).toMatchObject({ type: 'file', encoding: 'base64', name: '.hookpilot.yml', path: '.hookpilot.yml', size: Buffer.byteLength(text) })
  const content = String(found.json['content'])
  expect(content.split('\n').every((line) => line.length <= 60)).toBe(true)
  expect(Buffer.from(content, 'base64').toString('utf8')).toBe(text)
  expect((await call('GET', `/repos/${REPO}/contents/.hookpilot.yml?ref=${'c'.repeat(40)}`)).status).toBe(404)
  github.state.repository.setContent(REPO, BASE, 'big.txt', 'x'.repeat(1024 * 1024 + 1))
  expect((await call('GET', `/repos/${REPO}/contents/big.txt?ref=${BASE}`)).json).toMatchObject({ encoding: 'none', content: '' })
})

it("serves a pull request's details", async () => {
  github.state.repository.setPullDetails(REPO, 7, { title: 'Bump', draft: true, author: 'dependabot[bot]', labels: ['deps'], baseSha: BASE, baseRef: 'main', headRef: 'dependabot/x' })
  const { json } = await call('GET', `/repos/${REPO}/pulls/7`)
  expect(json).toMatchObject({ title: 'Bump', draft: true, user: { login: 'dependabot[bot]', type: 'Bot' }, labels: [{ name: 'deps' }], base: { sha: BASE, ref: 'main' }, head: { ref: 'dependabot/x' } })
})

it('records reactions once per user and content, and answers a permission', async () => {
  const first = await call('POST', `/repos/${REPO}/issues/comments/55/reactions`, { content: 'eyes' })
  const again = await call('POST', `/repos/${REPO}/issues/comments/55/reactions`, { content: 'eyes' })
  const bad = await call('POST', `/repos/${REPO}/pulls/comments/56/reactions`, { content: 'wave' })
  expect([first.status, again.status, bad.status]).toEqual([201, 200, 422])
  expect(github.state.repository.reactions(REPO)).toEqual([{ repo: REPO, on: 'issue', commentId: 55, content: 'eyes', login: github.login }])
  github.state.repository.setPermission(REPO, 'Alice', 'write')
  expect((await call('GET', `/repos/${REPO}/collaborators/alice/permission`)).json).toMatchObject({ permission: 'write' })
  expect((await call('GET', `/repos/${REPO}/collaborators/bob/permission`)).json).toMatchObject({ permission: 'none' })
})
