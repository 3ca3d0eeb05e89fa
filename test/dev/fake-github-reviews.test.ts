/**
 * The fake GitHub's pull request files and reviews, over real HTTP: the files paged in GitHub's shape, and a
 * review refused WHOLE (422, nothing stored) when one comment is not on a line of the diff, as GitHub refuses it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeGithub, type FakeGithub } from '../../src/dev/github/server.js'

const REPO = 'acme/gateway'
const HEAD = 'a'.repeat(40)
// The spec's worked example (shared spec §2): two hunks of src/app/handlers.py.
const PATCH = '@@ -10,6 +10,7 @@ def handle(event):\n     payload = event.body\n     if not payload:\n-        return None\n+        log.warning("empty payload")\n+        return {}\n     route = payload.get("route")\n     target = ROUTES[route]\n     return target(payload)\n@@ -40,6 +41,6 @@ class Router:\n     def add(self, name, fn):\n-        self.routes[name] = fn\n+        self.routes.setdefault(name, fn)\n         return fn\n \n     def get(self, name):\n         return self.routes.get(name)'

/** The answers' JSON, read as the test expects it (a wrong shape fails the assertion, not the type check). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of several shapes, each asserted on below
type Json = any

let github: FakeGithub
beforeEach(async () => {
  github = await startFakeGithub()
  github.setHead(REPO, 7, HEAD)
  github.setFiles(REPO, 7, HEAD, [
    { filename: 'src/app/handlers.py', status: 'modified', patch: PATCH },
    { filename: 'docs/diagram.png', status: 'added' },
  ])
})
afterEach(async () => github.close())

async function call(method: string, path: string, body?: unknown): Promise<{ status: number, json: Json, link: string | null }> {
  const res = await fetch(`${github.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${github.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, json: await res.json(), link: res.headers.get('link') }
}

const review = (comments: unknown[]) => ({ commit_id: HEAD, body: 'Summary', event: 'COMMENT', comments })

describe('the fake GitHub: pull request files', () => {
  it('lists the files at the head in GitHub\'s shape, paged with a Link header', async () => {
    const first = await call('GET', `/repos/${REPO}/pulls/7/files?per_page=1`)
    expect(first.json).toEqual([expect.objectContaining({ filename: 'src/app/handlers.py', status: 'modified', patch: PATCH, additions: 3, deletions: 2, changes: 5 })])
    expect(first.link).toMatch(/page=2>; rel="next"/)
    const second = await call('GET', `/repos/${REPO}/pulls/7/files?per_page=1&page=2`)
    expect(second.json[0].filename).toBe('docs/diagram.png')
    expect(second.json[0]).not.toHaveProperty('patch')
    expect(second.link).toBeNull()
  })
})

describe('the fake GitHub: reviews', () => {
  it('stores a review whose comments are all on lines of the diff, ranges inside one hunk', async () => {
    const created = await call('POST', `/repos/${REPO}/pulls/7/reviews`, review([
      { path: 'src/app/handlers.py', line: 13, side: 'RIGHT', body: 'added line' },
      { path: 'src/app/handlers.py', line: 12, side: 'LEFT', body: 'removed line' },
      { path: 'src/app/handlers.py', start_line: 41, start_side: 'RIGHT', line: 42, side: 'RIGHT', body: 'range' },
    ]))
    expect(created.status).toBe(200)
    expect(created.json).toMatchObject({ state: 'COMMENTED', commit_id: HEAD, body: 'Summary', user: { login: github.login } })
    const listed = await call('GET', `/repos/${REPO}/pulls/7/reviews`)
    expect(listed.json.map((r: { id: number }) => r.id)).toEqual([created.json.id])
    const comments = await call('GET', `/repos/${REPO}/pulls/7/comments`)
    expect(comments.json.map((c: { line: number, side: string }) => `${c.side}${c.line}`)).toEqual(['RIGHT13', 'LEFT12', 'RIGHT42'])
    expect(comments.json[2]).toMatchObject({ start_line: 41, start_side: 'RIGHT', pull_request_review_id: created.json.id })
  })

  it.each([
    ['a line outside every hunk', { path: 'src/app/handlers.py', line: 30, side: 'RIGHT' }, 'Pull request review thread line must be part of the diff'],
    ['a LEFT number on an added-only line', { path: 'src/app/handlers.py', line: 47, side: 'LEFT' }, 'Pull request review thread line must be part of the diff'],
    ['a range across two hunks', { path: 'src/app/handlers.py', start_line: 13, start_side: 'RIGHT', line: 42, side: 'RIGHT' }, 'Pull request review thread start line must be part of the same hunk as the line.'],
    ['a range that does not precede its end', { path: 'src/app/handlers.py', start_line: 13, start_side: 'RIGHT', line: 13, side: 'RIGHT' }, 'Pull request review thread start line must precede the end line.'],
    ['a file without a patch', { path: 'docs/diagram.png', line: 1, side: 'RIGHT' }, "Pull request review thread diff hunk can't be blank"],
    ['a file the pull request does not change', { path: 'README.md', line: 1, side: 'RIGHT' }, "Pull request review thread diff hunk can't be blank"],
  ])('refuses the whole review for %s, storing nothing', async (_case, bad, message) => {
    const answer = await call('POST', `/repos/${REPO}/pulls/7/reviews`, review([
      { path: 'src/app/handlers.py', line: 13, side: 'RIGHT', body: 'fine' },
      { ...bad, body: 'misplaced' },
    ]))
    expect(answer.status).toBe(422)
    expect(answer.json).toMatchObject({ message: 'Unprocessable Entity', errors: [message], status: '422' })
    expect(github.reviews(REPO, 7)).toEqual([])
    expect((await call('GET', `/repos/${REPO}/pulls/7/comments`)).json).toEqual([])
  })

  it('checks the comments against the diff at commit_id, not at the head now', async () => {
    const next = 'b'.repeat(40)
    github.setHead(REPO, 7, next)
    github.setFiles(REPO, 7, next, [{ filename: 'src/app/handlers.py', status: 'modified', patch: '@@ -1,1 +1,1 @@\n-a\n+b' }])
    expect((await call('POST', `/repos/${REPO}/pulls/7/reviews`, review([{ path: 'src/app/handlers.py', line: 13, side: 'RIGHT', body: 'x' }]))).status).toBe(200)
    expect((await call('POST', `/repos/${REPO}/pulls/7/reviews`, { ...review([{ path: 'src/app/handlers.py', line: 13, side: 'RIGHT', body: 'x' }]), commit_id: next })).status).toBe(422)
  })

  it('joins several errors into one string and refuses a COMMENT without a body', async () => {
    const answer = await call('POST', `/repos/${REPO}/pulls/7/reviews`, review([
      { path: 'src/app/handlers.py', line: 30, side: 'RIGHT', body: 'a' },
      { path: 'docs/diagram.png', line: 1, side: 'RIGHT', body: 'b' },
    ]))
    expect(answer.json.errors).toEqual(["Pull request review thread line must be part of the diff and Pull request review thread diff hunk can't be blank"])
    expect((await call('POST', `/repos/${REPO}/pulls/7/reviews`, { commit_id: HEAD, event: 'COMMENT' })).status).toBe(422)
  })
})
