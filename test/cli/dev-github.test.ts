/**
 * The fake GitHub of `hookpilot dev github` (issue 38, item 8) over real HTTP: GitHub's refusals kept from the
 * tests' old fixture (401 for an unknown token, 403 for another account's comment, 404 for an unknown pull
 * request, 422 for a write without a body), its admin endpoints, its request log; and the `head` and `show`
 * commands against it, in process.
 */
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CliIO } from '../../src/cli/io.js'
import { main } from '../../src/cli/run.js'
import { formatRequestRecord, startFakeGithub, type FakeGithub, type FakeRequestRecord } from '../../src/dev/github/server.js'

const REPO = 'octo/repo'
const HEAD = 'abcdef0123456789abcdef0123456789abcdef01'

let github: FakeGithub
const records: FakeRequestRecord[] = []
beforeAll(async () => {
  github = await startFakeGithub({ token: 'token-of-the-bot-123', login: 'review-bot', onRequest: (r) => records.push(r) })
  github.setHead(REPO, 1, HEAD)
})
afterAll(() => github.close())

const api = (method: string, path: string, body?: unknown, token = github.token) =>
  fetch(`${github.url}${path}`, { method, headers: { authorization: `token ${token}` }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

describe('the fake GitHub', () => {
  it('answers comments as GitHub does, refusing what GitHub refuses, and logs each request without its token', async () => {
    expect((await api('GET', '/user', undefined, 'wrong')).status).toBe(401)
    expect(await (await api('GET', '/user')).json()).toEqual({ login: 'review-bot', type: 'User' })
    expect((await api('POST', '/repos/octo/repo/issues/2/comments', { body: 'x' })).status).toBe(404)
    expect((await api('POST', `/repos/${REPO}/issues/1/comments`, {})).status).toBe(422)
    const created = (await (await api('POST', `/repos/${REPO}/issues/1/comments`, { body: 'first' })).json()) as { id: number }
    const other = github.addComment(REPO, 1, 'a person', 'someone')
    expect((await api('PATCH', `/repos/${REPO}/issues/comments/${other.id}`, { body: 'hijacked' })).status).toBe(403)
    expect((await api('PATCH', `/repos/${REPO}/issues/comments/${created.id}`, { body: 'second' })).status).toBe(200)
    expect(github.comments(REPO, 1).map((c) => [c.login, c.body, c.edits])).toEqual([['review-bot', 'second', 1], ['someone', 'a person', 0]])
    expect(github.writes().map((w) => w.kind)).toEqual(['created', 'edited'])

    // Pages link to the origin the client used (here the fake's own address, as Octokit would).
    const page = await api('GET', `/repos/${REPO}/issues/1/comments?per_page=1`)
    expect(page.headers.get('link')).toBe(`<${github.url}/repos/${REPO}/issues/1/comments?per_page=1&page=2>; rel="next", <${github.url}/repos/${REPO}/issues/1/comments?per_page=1&page=2>; rel="last"`)

    const lines = records.map(formatRequestRecord)
    expect(lines).toContain('GET /user → 401')
    expect(lines).toContain(`PATCH /repos/${REPO}/issues/comments/${created.id} → 200 review-bot · edited comment ${created.id} on ${REPO}#1 (edit 1): "second"`)
    expect(lines.join('\n')).not.toContain(github.token)
  })

  it('moves a head through its admin endpoint, refusing what is not a SHA', async () => {
    expect((await api('PUT', `/_fake/repos/${REPO}/pulls/1/head`, { sha: 'main' }, '')).status).toBe(422)
    const moved = await api('PUT', `/_fake/repos/${REPO}/pulls/1/head`, { sha: HEAD.replace('a', 'b') }, '')
    expect(moved.status).toBe(200)
    expect(await (await api('GET', `/repos/${REPO}/pulls/1`)).json()).toMatchObject({ number: 1, head: { sha: HEAD.replace('a', 'b') } })
    github.setHead(REPO, 1, HEAD)
  })
})

describe('hookpilot dev github head and show', () => {
  const run = async (...args: string[]) => {
    const io = captured()
    const code = await main(['dev', ...args], io)
    return { code, stdout: io.out(), stderr: io.err() }
  }

  it('moves a head and prints the comments of a running fake', async () => {
    const other = 'fedcba9876543210fedcba9876543210fedcba98'
    expect(await run('github', 'head', `${REPO}#1`, other, '--url', github.url)).toEqual({ code: 0, stdout: `${REPO}#1 head is now ${other}\n`, stderr: '' })
    const shown = await run('github', 'show', `${REPO}#1`, '--url', github.url)
    expect(shown.stdout).toMatch(new RegExp(`^${REPO}#1 at ${other}, \\d+ comments\\n`))
    expect(shown.stdout).toContain('by someone, never edited:\n  a person\n')
    github.setHead(REPO, 1, HEAD)
  })

  it('a head pushed on its parent: the compare API then says how the heads relate', async () => {
    const [first, second] = ['1'.repeat(40), '2'.repeat(40)]
    expect((await run('github', 'head', `${REPO}#1`, first, '--parent', HEAD, '--url', github.url)).code).toBe(0)
    expect((await run('github', 'head', `${REPO}#1`, second, '--parent', first, '--url', github.url)).code).toBe(0)
    github.addCommit(REPO, HEAD)
    expect(await (await api('GET', `/repos/${REPO}/compare/${first}...${second}`)).json()).toMatchObject({ status: 'ahead', ahead_by: 1 })
    expect(await run('github', 'head', `${REPO}#1`, first, '--parent', 'main', '--url', github.url)).toMatchObject({ code: 2, stderr: expect.stringContaining('--parent takes a commit SHA') })
    github.setHead(REPO, 1, HEAD)
  })

  it('says what to change for a bad pull request, SHA, tool, or a fake that is not there', async () => {
    expect(await run('github', 'head', 'octo-repo#1', HEAD)).toMatchObject({ code: 2, stderr: expect.stringContaining('"octo-repo#1" is not a pull request: write OWNER/REPO#NUMBER') })
    expect(await run('github', 'head', `${REPO}#1`, 'HEAD~1')).toMatchObject({ code: 2, stderr: expect.stringContaining('head takes a commit SHA') })
    expect(await run('github', 'show', `${REPO}#9`, '--url', github.url)).toMatchObject({ code: 1, stderr: expect.stringContaining(`has no pull request ${REPO}#9: "hookpilot dev github head ${REPO}#9 <sha>" declares it`) })
    expect(await run('gihub')).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown tool "gihub" (did you mean "github"?)') })
    // A closed port on loopback: nothing answers there.
    const closed = await startFakeGithub()
    const url = closed.url
    await closed.close()
    expect(await run('github', 'show', `${REPO}#1`, '--url', url)).toMatchObject({ code: 1, stderr: expect.stringContaining(`No fake GitHub answers at ${url} (ECONNREFUSED): start one with "hookpilot dev github"`) })
  })
})

/** Streams that keep what a command writes. */
function captured(): CliIO & { out(): string; err(): string } {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (d: Buffer) => (out += d.toString()))
  stderr.on('data', (d: Buffer) => (err += d.toString()))
  return { stdout, stderr, env: {}, cwd: process.cwd(), out: () => out, err: () => err }
}
