/**
 * The gitlab_mr target's handle on a merge request for the policy layer (`pullRequest`), against the fake GitLab
 * (real HTTP): the merge request's facts (a fork's, a draft, labels, a bot author), its changed paths page by
 * page, a repository file at a commit (missing, over max_bytes unread), the route's notice (one note, edited;
 * another user's note with the marker never taken), a reply, an award emoji (once), and a commenter's role read as
 * a permission (the token's own user is none).
 */
import { afterEach, expect, it } from 'vitest'
import { startFakeGitlab, type FakeGitlab } from '../../src/dev/gitlab/server.js'
import type { PullRequestHost } from '../../src/core/code-host-types.js'
import { gitlabMrDelivery } from '../../src/plugins/targets/gitlab-mr/gitlab-mr-target.js'
import { permissionOfRole } from '../../src/plugins/targets/gitlab-mr/mr-pull-request.js'
import { noteHook } from '../fixtures/gitlab.js'
import { sha } from '../fixtures/reviews.js'

const PROJECT = 'group/app'
const DIFF = '@@ -1 +1 @@\n-a\n+b\n'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

async function world(): Promise<{ api: FakeGitlab, host: PullRequestHost, start: string }> {
  const api = await startFakeGitlab()
  cleanup.push(() => api.close())
  const start = sha('target-tip')
  api.push(PROJECT, 4, sha('head'), [{ old_path: 'src/a.ts', new_path: 'src/a.ts', diff: DIFF }, { old_path: 'old.lock', new_path: 'yarn.lock', renamed_file: true, diff: '' }], { start })
  const target = gitlabMrDelivery({ token: api.token, apiUrl: api.apiUrl, timeoutMs: 2_000, http: { baseDelayMs: 10 } })
  const host = target.pullRequest?.({ route: 'mr-review', extra: { project: PROJECT, mr_iid: '4' }, payload: noteHook('@hookpilot review', { project: PROJECT, iid: 4, id: 1, user: { id: 1, username: 'x' } }), signal: AbortSignal.timeout(10_000) })
  if (host === undefined) throw new Error('the target offered no pull request')
  return { api, host, start }
}

it("names the merge request as the route does, and reads its facts: a fork's, a draft, its labels, a bot author, the target branch's commit", async () => {
  const { api, host, start } = await world()
  const renovate = api.addPerson('renovate-bot', { bot: true })
  api.updateMergeRequest(PROJECT, 4, { title: 'chore: bump', description: 'Bumps.\n\n@hookpilot ignore', draft: true, labels: ['deps', 'wip'], author: renovate, sourceProject: 'mallory/app', sourceBranch: 'renovate/x' })
  expect([host.repo, host.number]).toEqual([PROJECT, 4])
  expect(await host.facts()).toEqual({
    repo: PROJECT, number: 4, title: 'chore: bump', body: 'Bumps.\n\n@hookpilot ignore', draft: true, author: 'renovate-bot', authorIsBot: true,
    labels: ['deps', 'wip'], baseRef: 'main', baseSha: start, headRef: 'renovate/x', headSha: sha('head'),
  })
  // A route whose deliver_extra names no merge request GitLab could have gets no handle.
  const target = gitlabMrDelivery({ token: api.token, apiUrl: api.apiUrl })
  expect(target.pullRequest?.({ route: 'r', extra: { project: '../x', mr_iid: '4' }, payload: {}, signal: AbortSignal.timeout(1000) })).toBeUndefined()
})

it('lists the changed paths page by page (GET .../diffs), the new path of a rename', async () => {
  const { api, host } = await world()
  expect(await host.changedPaths()).toEqual(['src/a.ts', 'yarn.lock'])
  api.push(PROJECT, 4, sha('many'), Array.from({ length: 230 }, (_, n) => ({ old_path: `f${n}`, new_path: `f${n}`, diff: DIFF })))
  const paths = await host.changedPaths()
  expect([paths.length, paths[229]]).toEqual([230, 'f229'])
  expect(api.requests().filter((r) => r.includes('/diffs?'))).toHaveLength(4)
})

it('reads a file at a commit through the raw API: found, missing, and one over max_bytes not read', async () => {
  const { api, host, start } = await world()
  api.setFile(PROJECT, start, '.hookpilot.yml', 'filters:\n  skip_drafts: true\n')
  api.setFile(PROJECT, start, 'conf/big.yml', `# ${'x'.repeat(500)}\n`)
  expect(await host.readFile('.hookpilot.yml', start, 1000)).toEqual({ kind: 'found', text: 'filters:\n  skip_drafts: true\n' })
  expect(await host.readFile('.hookpilot.yml', sha('head'), 1000)).toEqual({ kind: 'missing' })
  expect(await host.readFile('conf/big.yml', start, 100)).toEqual({ kind: 'too_large', bytes: 503 })
  expect(api.requests()).toContain(`GET /projects/${encodeURIComponent(PROJECT)}/repository/files/conf%2Fbig.yml/raw?ref=${start} → 200`)

  // Without a size in the answer's headers, the read stops past the limit.
  const sizeless: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    const headers = new Headers([...response.headers].filter(([name]) => name !== 'x-gitlab-size' && name !== 'content-length'))
    return new Response(response.body, { status: response.status, headers })
  }
  const target = gitlabMrDelivery({ token: api.token, apiUrl: api.apiUrl, fetch: sizeless })
  const blind = target.pullRequest!({ route: 'mr-review', extra: { project: PROJECT, mr_iid: '4' }, payload: {}, signal: AbortSignal.timeout(10_000) })!
  const read = await blind.readFile('conf/big.yml', start, 100)
  expect(read.kind === 'too_large' && read.bytes > 100).toBe(true)
  expect(await blind.readFile('.hookpilot.yml', start, 1000)).toEqual({ kind: 'found', text: 'filters:\n  skip_drafts: true\n' })
})

it("writes the route's notice once and edits it after; another user's note with the marker is never taken; replies; quick actions inert", async () => {
  const { api, host } = await world()
  const mallory = api.addPerson('mallory')
  api.addNote(PROJECT, 4, '<!-- hookpilot:notice route=mr-review -->\nforged', mallory)
  const first = await host.notice('<!-- hookpilot:policy -->\n**No review:** first')
  const second = await host.notice('<!-- hookpilot:policy -->\n**Reviews paused**\n/approve')
  expect(second).toBe(first)
  const own = api.notes(PROJECT, 4).filter((n) => n.author.id === api.user.id && !n.system)
  expect(own.map((n) => [n.body, n.edits])).toEqual([['<!-- hookpilot:notice route=mr-review -->\n<!-- hookpilot:policy -->\n**Reviews paused**\n&#47;approve', 1]])
  expect(first).toMatch(new RegExp(`/${PROJECT}/-/merge_requests/4#note_${own[0]!.id}$`))
  expect(api.notes(PROJECT, 4).find((n) => n.author.id === mallory.id)?.body).toBe('<!-- hookpilot:notice route=mr-review -->\nforged')
  const reply = await host.reply('Commands:\n/close')
  expect(api.notes(PROJECT, 4).at(-1)?.body).toBe('Commands:\n&#47;close')
  expect(reply).toContain('#note_')
})

it('acknowledges a note with an award emoji, once however often asked', async () => {
  const { api, host } = await world()
  const note = api.addNote(PROJECT, 4, '@hookpilot review', api.addPerson('dev'))
  await host.react({ id: note.id, on: 'issue' }, 'eyes')
  await host.react({ id: note.id, on: 'issue' }, 'eyes')
  expect(api.awards(PROJECT, 4, note.id).map((a) => [a.name, a.user.id])).toEqual([['eyes', api.user.id]])
})

it("reads a commenter's role on the project as a permission; not a member, blocked, or the token's own user: none", async () => {
  const { api, host } = await world()
  const people = [50, 40, 30, 20, 10].map((level) => {
    const person = api.addPerson(`level-${level}`)
    api.addMember(PROJECT, person, level)
    return person
  })
  const blocked = api.addPerson('blocked')
  api.addMember(PROJECT, blocked, 40, 'blocked')
  api.addMember(PROJECT, api.user, 40)
  const asked = await Promise.all([...people, blocked, api.addPerson('stranger'), api.user].map((p) => host.permission({ login: p.username, id: p.id })))
  expect(asked).toEqual(['admin', 'maintain', 'write', 'triage', 'read', 'none', 'none', 'none'])
  expect(await host.permission({ login: 'no-id' })).toBe('none')
  expect([0, 5, 15].map(permissionOfRole)).toEqual(['none', 'read', 'read'])
})
