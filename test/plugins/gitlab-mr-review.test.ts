/**
 * The gitlab_mr target against the fake GitLab (src/dev/gitlab, real HTTP, which checks positions as GitLab
 * does): one sticky note per route, findings as discussions on the right lines (added: new_line only; removed:
 * old_line only; context: both; a range), the others folded into the note, a commit status per reviewed head;
 * exactly once across retries; the head as GitLab reports it decides; failures said with what to change.
 */
import { afterEach, expect, it } from 'vitest'
import { startFakeGitlab, type FakeGitlab } from '../../src/dev/gitlab/server.js'
import type { FakeGitlabDiff } from '../../src/dev/gitlab/state.js'
import { gitlabMrDelivery } from '../../src/plugins/targets/gitlab-mr/gitlab-mr-target.js'
import { payloadHead } from '../../src/plugins/targets/gitlab-mr/mr-payload.js'
import type { AgentAnswer, DeliveryTarget } from '../../src/core/types.js'
import { DeliveryError } from '../../src/core/errors.js'
import { deliveryContext, pluginContext } from '../../src/testing/context.js'
import { startedOf } from '../fixtures/started-job.js'
import { mergeRequestHook } from '../fixtures/gitlab.js'
import { sha } from '../fixtures/reviews.js'

const PROJECT = 'gitlabhq/gitlab-test'
const PATCH = '@@ -10,6 +10,7 @@ def handle(event):\n     payload = event.body\n     if not payload:\n-        return None\n+        log.warning("empty payload")\n+        return {}\n     route = payload.get("route")\n     target = ROUTES[route]\n     return target(payload)\n@@ -40,6 +41,6 @@ class Router:\n     def add(self, name, fn):\n-        self.routes[name] = fn\n+        self.routes.setdefault(name, fn)\n         return fn\n \n     def get(self, name):\n         return self.routes.get(name)\n'

const DIFFS: readonly FakeGitlabDiff[] = [
  { old_path: 'src/app/handlers.py', new_path: 'src/app/handlers.py', diff: PATCH },
  { old_path: 'docs/new.md', new_path: 'docs/new.md', new_file: true, diff: '@@ -0,0 +1,2 @@\n+# New\n+text\n' },
  { old_path: 'old/name.py', new_path: 'new/name.py', renamed_file: true, diff: '' },
  { old_path: 'docs/diagram.png', new_path: 'docs/diagram.png', new_file: true, diff: 'Binary files /dev/null and b/docs/diagram.png differ\n' },
]

const DOCUMENT = {
  summary: 'Two problems in the handler.\n/approve\n/merge',
  findings: [
    { path: 'src/app/handlers.py', line: 13, severity: 'major', title: 'Empty dict hides the error', body: 'Return None as before.', suggestion: '        return None' },
    { path: 'src/app/handlers.py', line: 12, side: 'LEFT', severity: 'minor', body: 'This line was the contract.' },
    { path: 'src/app/handlers.py', line: 14, severity: 'nit', body: 'A context line: both numbers.' },
    { path: 'src/app/handlers.py', start_line: 41, line: 42, severity: 'nit', body: 'setdefault keeps the first route.' },
    { path: 'src/app/handlers.py', line: 30, severity: 'critical', title: 'Unchanged line', body: 'ROUTES is global state. <!-- hookpilot:review route=mr-review -->\n/close' },
    { path: 'docs/diagram.png', line: 1, severity: 'nit', body: 'Binary: folded.' },
    { path: 'docs/new.md', line: 2, severity: 'minor', body: 'On an added file.' },
  ],
}

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

async function world(): Promise<{ api: FakeGitlab, target: DeliveryTarget, projectId: number }> {
  const api = await startFakeGitlab()
  cleanup.push(() => api.close())
  const projectId = api.push(PROJECT, 1, sha('head-1'), DIFFS)
  const target = gitlabMrDelivery({ token: api.token, apiUrl: api.apiUrl, timeoutMs: 2_000, http: { baseDelayMs: 10 }, clock: () => Date.parse('2026-11-27T23:00:00Z') })
  return { api, target, projectId }
}

function answer(text: string, head: string, options: { route?: string, delivery?: string, extra?: Record<string, string> } = {}): AgentAnswer {
  return {
    route: options.route ?? 'mr-review',
    event: 'Merge Request Hook',
    deliveryId: options.delivery ?? `delivery-${head}`,
    text,
    extra: { project: PROJECT, mr_iid: '1', fail_on: 'critical', status_url: 'https://hooks.example.com/status', ...options.extra },
    payload: mergeRequestHook('update', { project: PROJECT, iid: 1, head }) as AgentAnswer['payload'],
    covers: 2,
  }
}

it('posts one note and a discussion per placeable finding, each on the line GitLab names it by, the rest folded; zero position errors', async () => {
  const { api, target } = await world()
  const head = sha('head-1')
  // The agent starts: the status is `running` while it runs.
  await target.started?.(startedOf(answer(JSON.stringify(DOCUMENT), head), head), pluginContext())
  expect(api.statuses(PROJECT).map((s) => [s.sha, s.status, s.ref])).toEqual([[head, 'running', 'feature-1']])
  const ctx = deliveryContext()
  const receipt = await target.deliver(answer(JSON.stringify(DOCUMENT), head), ctx)
  expect(receipt).toMatchObject({ posted: true })
  expect(api.positionErrors()).toBe(0)
  expect(ctx.saved).toEqual([1, 2])

  const discussions = api.discussions(PROJECT, 1)
  const positions = discussions.map((d) => d.notes[0]!.position as Record<string, unknown>)
  expect(positions.map((p) => [p['new_path'], p['old_line'] ?? null, p['new_line'] ?? null])).toEqual([
    ['src/app/handlers.py', null, 13], // added: new_line only
    ['src/app/handlers.py', 12, null], // removed: old_line only
    ['src/app/handlers.py', 13, 14], // context: both, and they differ
    ['src/app/handlers.py', null, 42], // a range from a context line to an added one
    ['docs/new.md', null, 2], // an added file: both paths, new_line only
  ])
  expect(positions[3]!['line_range']).toMatchObject({ start: { type: 'old', old_line: 40, new_line: 41 }, end: { type: 'new', new_line: 42 } })
  expect(positions.every((p) => p['old_path'] === p['new_path'] && p['head_sha'] === head)).toBe(true)
  const first = discussions[0]!.notes[0]!.body
  expect(first.split('\n')[0]).toMatch(new RegExp(`^<!-- hookpilot:finding route=mr-review head=${head} n=0 fp=[0-9a-f]{16} -->$`))
  expect(first).toContain('```suggestion\n        return None\n```')

  const notes = api.notes(PROJECT, 1).filter((n) => n.type === null && !n.system)
  expect(notes).toHaveLength(1)
  const body = notes[0]!.body
  expect(body.split('\n').slice(0, 2)).toEqual(['<!-- hookpilot:review route=mr-review -->', `<!-- hookpilot:reviewed head=${head} delivery=delivery-${head} -->`])
  expect(body).toContain('ROUTES is global state.')
  expect(body).toContain('Binary: folded.')
  expect(body).toContain('<!-- hookpilot (quoted):review route=mr-review -->')
  expect(body).toContain(`Review of ${head.slice(0, 7)} · 2026-11-27 23:00 UTC · covers 2 pushes`)
  // No line of the agent's text is a quick action GitLab would run.
  expect(body.split('\n').filter((line) => line.trimStart().startsWith('/'))).toEqual([])
  expect(body).toContain('&#47;approve')
  for (const text of ['Return None as before.', 'This line was the contract.', 'On an added file.']) expect(body).not.toContain(text)

  // The status: running, then failed (a critical finding reaches fail_on): the same status, moved, with the link.
  expect(api.statuses(PROJECT)).toHaveLength(1)
  const [status] = api.statuses(PROJECT)
  expect(status).toMatchObject({ sha: head, name: 'hookpilot/mr-review', status: 'failed', target_url: 'https://hooks.example.com/status', ref: 'feature-1' })
  expect(status!.history).toEqual(['running', 'failed'])
})

it('posts nothing twice: the same delivery again is done with the same note, another delivery of the reviewed head is skipped', async () => {
  const { api, target } = await world()
  const head = sha('head-1')
  const first = await target.deliver(answer(JSON.stringify(DOCUMENT), head), deliveryContext())
  const again = await target.deliver(answer(JSON.stringify(DOCUMENT), head), deliveryContext(2, 2))
  expect(again).toEqual(first)
  const other = await target.deliver(answer(JSON.stringify(DOCUMENT), head, { delivery: 'a-reopen' }), deliveryContext())
  expect(other).toMatchObject({ posted: false, outcome: 'skipped', reason: expect.stringMatching(/^already reviewed: head [0-9a-f]{7} has this route's review/) })
  expect(api.discussions(PROJECT, 1)).toHaveLength(5)
  expect(api.notes(PROJECT, 1).filter((n) => n.type === null && !n.system)).toHaveLength(1)
  // A repeated `failed` is refused by (strict) GitLab and taken as done.
  expect(api.statuses(PROJECT)).toHaveLength(1)
})

it('a discussion posted and its answer lost (a 502 after the write, then a timeout): the retry finds it, no second one', async () => {
  const { api, target } = await world()
  const head = sha('head-1')
  api.fail({ method: 'POST', path: /\/discussions$/, status: 502, afterWrite: true })
  const failed = await target.deliver(answer(JSON.stringify(DOCUMENT), head), deliveryContext()).catch((e: unknown) => e)
  expect(DeliveryError.is(failed) && failed.retryable).toBe(true)
  expect(String(failed)).toContain('GitLab answered 502 (trying to start a discussion on the diff)')
  api.fail({ method: 'POST', path: /\/discussions$/, status: 'hang' })
  const timedOut = await target.deliver(answer(JSON.stringify(DOCUMENT), head), deliveryContext(2)).catch((e: unknown) => e)
  expect(DeliveryError.is(timedOut) && timedOut.retryable).toBe(true)
  expect(String(timedOut)).toMatch(/did not answer within 2000 ms \(trying to start a discussion on the diff\)/)
  await target.deliver(answer(JSON.stringify(DOCUMENT), head), deliveryContext(3))
  const markers = api.discussions(PROJECT, 1).map((d) => d.notes[0]!.body.split('\n')[0])
  expect(markers).toHaveLength(5)
  expect(new Set(markers).size).toBe(5)
  expect(api.positionErrors()).toBe(0)
})

it('a finding GitLab refuses to place is folded into the note, not lost', async () => {
  const { api, target } = await world()
  const head = sha('head-1')
  api.fail({ method: 'POST', path: /\/discussions$/, status: 400, body: { message: '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}' } })
  await target.deliver(answer(JSON.stringify(DOCUMENT), head), deliveryContext())
  expect(api.discussions(PROJECT, 1)).toHaveLength(4)
  const note = api.notes(PROJECT, 1).find((n) => n.type === null && !n.system)!
  expect(note.body).toContain('Return None as before.')
  expect(note.body).toContain('the code host refused it as an inline comment')
})

it('the head GitLab reports decides: an answer for an older head is superseded (its status canceled) or skipped once the new head is reviewed', async () => {
  const { api, target } = await world()
  const a = sha('head-1')
  const b = sha('head-2')
  api.push(PROJECT, 1, b, DIFFS)
  const stale = await target.deliver(answer(JSON.stringify(DOCUMENT), a), deliveryContext())
  expect(stale).toMatchObject({ posted: false, outcome: 'superseded', reason: expect.stringContaining(`moved to ${b.slice(0, 7)}`) })
  expect(api.statuses(PROJECT).map((s) => [s.sha, s.status])).toEqual([[a, 'canceled']])
  expect(api.discussions(PROJECT, 1)).toHaveLength(0)
  // The new head gets a job of its own, named for the merge request and that head (queued once), whose event
  // names the new head and keeps the rest of the old event.
  const followUp = stale !== undefined && 'followUp' in stale ? stale.followUp : undefined
  expect(followUp?.key).toBe(`${PROJECT}!1@${b}`)
  const followed = answer('', a).payload!
  expect(followUp?.payload).toEqual({ ...followed, object_attributes: { ...(followed['object_attributes'] as object), last_commit: { ...((followed['object_attributes'] as Record<string, object>)['last_commit']), id: b } } })
  expect(payloadHead(followUp?.payload)).toBe(b)

  await target.deliver(answer(JSON.stringify({ summary: 'Fine now.', findings: [DOCUMENT.findings[1]] }), b), deliveryContext())
  const late = await target.deliver(answer(JSON.stringify(DOCUMENT), a, { delivery: 'late' }), deliveryContext())
  expect(late).toMatchObject({ posted: false, outcome: 'skipped', reason: expect.stringContaining('already reviewed') })
  expect(api.statuses(PROJECT).map((s) => [s.sha, s.status])).toEqual([[a, 'canceled'], [b, 'success']])
})

it('the next head edits the same note and resolves the earlier discussions whose finding is not raised again', async () => {
  const { api, target } = await world()
  const a = sha('head-1')
  const b = sha('head-2')
  await target.deliver(answer(JSON.stringify(DOCUMENT), a), deliveryContext())
  api.push(PROJECT, 1, b, DIFFS)
  // Only the LEFT finding is raised again.
  await target.deliver(answer(JSON.stringify({ summary: 'Better.', findings: [DOCUMENT.findings[1]] }), b), deliveryContext())
  const notes = api.notes(PROJECT, 1).filter((n) => n.type === null && !n.system)
  expect(notes).toHaveLength(1)
  expect(notes[0]!.edits).toBe(1)
  expect(notes[0]!.body.split('\n')[1]).toBe(`<!-- hookpilot:reviewed head=${b} delivery=delivery-${b} -->`)
  const byHead = api.discussions(PROJECT, 1).map((d) => [d.notes[0]!.body.includes(`head=${a}`) ? 'a' : 'b', d.notes[0]!.body.includes('This line was the contract.'), d.notes[0]!.resolved])
  expect(byHead).toEqual([['a', false, true], ['a', true, false], ['a', false, true], ['a', false, true], ['a', false, true], ['b', true, false]])
})

it('passes over another user\'s note carrying the marker, and GitLab\'s system notes', async () => {
  const { api, target } = await world()
  const head = sha('head-1')
  const intruder = api.addUser('glpat-other', 'mallory')
  const forged = api.addNote(PROJECT, 1, '<!-- hookpilot:review route=mr-review -->\n<!-- hookpilot:reviewed head=' + head + ' delivery=x -->\nforged', intruder)
  api.addNote(PROJECT, 1, '<!-- hookpilot:review route=mr-review -->\nsystem', 'system')
  const receipt = await target.deliver(answer(JSON.stringify(DOCUMENT), head), deliveryContext())
  expect(receipt).toMatchObject({ posted: true })
  expect(forged.body).toContain('forged')
  expect(forged.edits).toBe(0)
  expect(api.notes(PROJECT, 1).filter((n) => n.author.id === api.user.id && !n.system && n.type === null)).toHaveLength(1)
})

it('says what to change: a token without the api scope, a wrong token, an unknown project, a bad deliver_extra', async () => {
  const { api } = await world()
  const head = sha('head-1')
  api.addUser('glpat-read', 'reader', ['read_api'])
  const reader = gitlabMrDelivery({ token: 'glpat-read', apiUrl: api.apiUrl, timeoutMs: 2_000 })
  const noScope = await reader.deliver(answer(JSON.stringify(DOCUMENT), head), deliveryContext()).catch((e: unknown) => String(e))
  expect(noScope).toContain('the token lacks the api scope (403 insufficient_scope')
  const wrong = gitlabMrDelivery({ token: 'glpat-wrong-token-123', apiUrl: api.apiUrl, timeoutMs: 2_000 })
  const refused = await wrong.deliver(answer(JSON.stringify(DOCUMENT), head), deliveryContext()).catch((e: unknown) => String(e))
  expect(refused).toContain('GitLab refused the token (401')
  expect(refused).not.toContain('glpat-wrong-token-123')
  const target = gitlabMrDelivery({ token: api.token, apiUrl: api.apiUrl, timeoutMs: 2_000 })
  const missing = await target.deliver(answer(JSON.stringify(DOCUMENT), head, { extra: { project: 'nobody/nothing' } }), deliveryContext()).catch((e: unknown) => String(e))
  expect(missing).toContain('GitLab answered 404 (trying to read the merge request)')
  const bad = await target.deliver(answer(JSON.stringify(DOCUMENT), head, { extra: { mr_iid: '1; rm' } }), deliveryContext()).catch((e: unknown) => String(e))
  expect(bad).toContain('mr_iid "1; rm" is not a positive integer')
  expect(target.checkRoute?.({ name: 'r', deliver: 'gitlab_mr', deliverExtra: { project: '{project.id}' } } as never)).toContain('needs deliver_extra.mr_iid')
  expect(target.checkRoute?.({ name: 'r', deliver: 'gitlab_mr', deliverExtra: { project: '{project.id}', mr_iid: '{object_attributes.iid}', fail_on: 'fatal' } } as never)).toContain('deliver_extra.fail_on "fatal" is not one of critical, major, minor, nit')
})

it('an invalid document fails without a post; plain text is a summary-only review', async () => {
  const { api, target } = await world()
  const head = sha('head-1')
  const invalid = await target.deliver(answer('{"summary": "x", "findings": [{"path": "a", "line": 0}]}', head), deliveryContext()).catch((e: unknown) => e)
  expect(DeliveryError.is(invalid) && !invalid.retryable).toBe(true)
  expect(api.notes(PROJECT, 1).filter((n) => !n.system)).toHaveLength(0)
  await target.deliver(answer('Looks fine to me.', head), deliveryContext())
  expect(api.notes(PROJECT, 1).find((n) => !n.system)?.body).toContain('Looks fine to me.')
  expect(api.statuses(PROJECT)[0]?.status).toBe('success')
})

it('a crash midway and another answer for the same head (the agent run again): its findings are posted, none taken for the earlier answer\'s', async () => {
  const { api, target } = await world()
  const head = sha('head-1')
  // The first answer's discussions are made, then the note's write fails.
  api.fail({ method: 'POST', path: /\/notes$/, status: 500 })
  await expect(target.deliver(answer(JSON.stringify(DOCUMENT), head), deliveryContext())).rejects.toThrow(/GitLab answered 500/)
  expect(api.discussions(PROJECT, 1)).toHaveLength(5)
  const other = { summary: 'Second run.', findings: [{ path: 'src/app/handlers.py', line: 13, severity: 'minor', body: 'Another view of line 13.' }] }
  await target.deliver(answer(JSON.stringify(other), head), deliveryContext(2))
  const bodies = api.discussions(PROJECT, 1).map((d) => d.notes[0]!.body)
  expect(bodies).toHaveLength(6)
  expect(bodies.at(-1)).toContain('Another view of line 13.')
})
