/**
 * What the fake GitLab answers the policy's calls, as GitLab does: a repository file's raw content at a commit
 * (with `X-Gitlab-Size`; a path that climbs out is a 400, an unknown commit or file a 404), a project member's
 * role (404 for anyone else), a user's `bot` flag, the merge request's facts and its changed files page by page,
 * and award emoji on a note (a repeat, or a name GitLab does not know, is GitLab's 404; a read_api token's 403).
 */
import { afterEach, expect, it } from 'vitest'
import { startFakeGitlab, type FakeGitlab } from '../../src/dev/gitlab/server.js'
import { sha } from '../fixtures/reviews.js'

const PROJECT = 'group/app'
const P = encodeURIComponent(PROJECT)

let api: FakeGitlab | undefined
afterEach(async () => {
  await api?.close()
  api = undefined
})

async function call(fake: FakeGitlab, path: string, init: { method?: string, body?: unknown, token?: string } = {}): Promise<{ status: number, text: string, json: unknown, headers: Headers }> {
  const res = await fetch(`${fake.apiUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'private-token': init.token ?? fake.token, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  })
  const text = await res.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, text, json, headers: res.headers }
}

it('repository files: the raw content at a commit with its size; 400 for a path that climbs out; 404 for an unknown commit or file', async () => {
  api = await startFakeGitlab()
  const base = sha('files-base')
  api.push(PROJECT, 1, sha('files-head'), [], { start: base })
  api.setFile(PROJECT, base, 'config/.hookpilot.yml', 'filters:\n  skip_drafts: true\n')
  const file = await call(api, `/projects/${P}/repository/files/${encodeURIComponent('config/.hookpilot.yml')}/raw?ref=${base}`)
  expect([file.status, file.text, file.headers.get('x-gitlab-size'), file.headers.get('content-type')]).toEqual([200, 'filters:\n  skip_drafts: true\n', '29', 'text/plain; charset=utf-8'])
  expect((await call(api, `/projects/${P}/repository/files/config/.hookpilot.yml/raw?ref=${base}`)).status).toBe(404)
  expect((await call(api, `/projects/${P}/repository/files/${encodeURIComponent('../etc/passwd')}/raw?ref=${base}`)).status).toBe(400)
  expect((await call(api, `/projects/${P}/repository/files/README.md/raw?ref=${base}`)).json).toEqual({ message: '404 File Not Found' })
  expect((await call(api, `/projects/${P}/repository/files/README.md/raw?ref=${sha('nowhere')}`)).json).toEqual({ message: '404 Commit Not Found' })
  expect((await call(api, `/projects/${P}/repository/files/README.md/raw?ref=`)).status).toBe(400)
})

it('members/all: a member with their role, 404 for anyone else, 400 for an id that is not a number; users: the bot flag', async () => {
  api = await startFakeGitlab()
  api.push(PROJECT, 1, sha('m-head'), [])
  const dev = api.addPerson('dev')
  const robot = api.addPerson('renovate', { bot: true })
  api.addMember(PROJECT, dev, 30)
  expect((await call(api, `/projects/${P}/members/all/${dev.id}`)).json).toMatchObject({ id: dev.id, username: 'dev', access_level: 30, state: 'active' })
  expect((await call(api, `/projects/${P}/members/all/${robot.id}`)).json).toEqual({ message: '404 Not found' })
  expect((await call(api, `/projects/${P}/members/all/dev`)).status).toBe(400)
  expect([(await call(api, `/users/${robot.id}`)).json, (await call(api, `/users/${dev.id}`)).json]).toMatchObject([{ bot: true }, { bot: false }])
  expect((await call(api, '/user')).json).toMatchObject({ id: api.user.id, bot: true })
})

it("the merge request's facts, a fork's source project, and its changed files page by page", async () => {
  api = await startFakeGitlab()
  const diffs = Array.from({ length: 120 }, (_, n) => ({ old_path: `f${n}.ts`, new_path: `f${n}.ts`, diff: '@@ -1 +1 @@\n-a\n+b\n' }))
  const start = sha('facts-start')
  api.push(PROJECT, 2, sha('facts-head'), diffs, { start })
  const author = api.addPerson('mallory')
  api.updateMergeRequest(PROJECT, 2, { title: 'WIP: x', description: 'body', draft: true, labels: ['wip'], author, sourceProject: 'mallory/app', sourceBranch: 'patch-1' })
  expect((await call(api, `/projects/${P}/merge_requests/2`)).json).toMatchObject({
    title: 'WIP: x', description: 'body', draft: true, labels: ['wip'], author: { id: author.id, username: 'mallory' }, source_branch: 'patch-1', target_branch: 'main',
    source_project_id: 2, target_project_id: 1, sha: sha('facts-head'), diff_refs: { start_sha: start },
  })
  const first = await call(api, `/projects/${P}/merge_requests/2/diffs?per_page=100&page=1`)
  const second = await call(api, `/projects/${P}/merge_requests/2/diffs?per_page=100&page=2`)
  expect([(first.json as unknown[]).length, (second.json as unknown[]).length, first.headers.get('x-next-page')]).toEqual([100, 20, '2'])
  expect((second.json as { new_path: string }[]).at(-1)?.new_path).toBe('f119.ts')
})

it("award emoji on a merge request's note: 201, a repeat or an unknown name GitLab's 404, a note elsewhere 404, read_api 403", async () => {
  api = await startFakeGitlab()
  api.push(PROJECT, 3, sha('award-head'), [])
  const note = api.addNote(PROJECT, 3, '@hookpilot review', api.addPerson('dev'))
  const path = `/projects/${P}/merge_requests/3/notes/${note.id}/award_emoji`
  expect(await call(api, path, { method: 'POST', body: { name: 'eyes' } })).toMatchObject({ status: 201, json: { name: 'eyes', awardable_id: note.id, awardable_type: 'Note' } })
  expect((await call(api, path, { method: 'POST', body: { name: 'eyes' } })).json).toEqual({ message: '404 Award Emoji User has already been taken Not Found' })
  expect((await call(api, path, { method: 'POST', body: { name: 'no-such-emoji' } })).status).toBe(404)
  expect((await call(api, path, { method: 'POST', body: {} })).status).toBe(400)
  expect((await call(api, `/projects/${P}/merge_requests/3/notes/999999/award_emoji`, { method: 'POST', body: { name: 'eyes' } })).json).toEqual({ message: '404 Note Not Found' })
  api.addUser('glpat-read-only', 'reader', ['read_api'])
  expect((await call(api, path, { method: 'POST', body: { name: 'rocket' }, token: 'glpat-read-only' })).status).toBe(403)
  expect(api.awards(PROJECT, 3, note.id).map((a) => a.name)).toEqual(['eyes'])
})
