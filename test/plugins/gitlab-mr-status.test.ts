/**
 * The gitlab_mr target's commit status over a review's life (issue 33, item 4), against the fake GitLab (real
 * HTTP), which moves statuses as GitLab's state machine does: `running` when the agent starts (`started`), moved
 * to `success`/`failed` by the delivery, to `canceled` or `failed` when the job ends without a review (`ended`);
 * one status per head, never left `running`, never `success` for a head that was not reviewed.
 */
import { afterEach, expect, it } from 'vitest'
import { startFakeGitlab, type FakeGitlab } from '../../src/dev/gitlab/server.js'
import type { FakeGitlabDiff } from '../../src/dev/gitlab/state.js'
import { gitlabMrDelivery } from '../../src/plugins/targets/gitlab-mr/gitlab-mr-target.js'
import type { AgentAnswer, DeliveryTarget, EndedJob } from '../../src/core/types.js'
import { deliveryContext, pluginContext } from '../../src/testing/context.js'
import { mergeRequestHook } from '../fixtures/gitlab.js'
import { sha } from '../fixtures/reviews.js'
import { startedOf } from '../fixtures/started-job.js'

const PROJECT = 'gitlabhq/gitlab-test'
const DIFFS: readonly FakeGitlabDiff[] = [{ old_path: 'docs/new.md', new_path: 'docs/new.md', new_file: true, diff: '@@ -0,0 +1,2 @@\n+# New\n+text\n' }]
const REVIEW = JSON.stringify({ summary: 'Fine.', findings: [{ path: 'docs/new.md', line: 2, severity: 'minor', body: 'A word.' }] })

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

async function world(head: string): Promise<{ api: FakeGitlab, target: DeliveryTarget }> {
  const api = await startFakeGitlab()
  cleanup.push(() => api.close())
  api.push(PROJECT, 1, head, DIFFS)
  const target = gitlabMrDelivery({ token: api.token, apiUrl: api.apiUrl, timeoutMs: 2_000, http: { baseDelayMs: 10 } })
  return { api, target }
}

function answer(head: string, delivery = `delivery-${head.slice(0, 6)}`): AgentAnswer {
  const extra = { project: PROJECT, mr_iid: '1', fail_on: 'major', incremental: 'false' }
  return { route: 'mr-review', event: 'Merge Request Hook', deliveryId: delivery, job: `job-${delivery}`, text: REVIEW, extra, payload: mergeRequestHook('update', { project: PROJECT, iid: 1, head }) as AgentAnswer['payload'] }
}

function ended(of: AgentAnswer, head: string, outcome: EndedJob['outcome'], started = true): EndedJob {
  return {
    route: of.route, event: of.event, deliveryId: of.deliveryId, job: of.job ?? '', extra: of.extra, payload: of.payload, outcome, reason: `the reason for ${outcome}`,
    ...(started ? { variables: startedOf(of, head).variables } : {}),
  }
}

const statuses = (api: FakeGitlab) => api.statuses(PROJECT).map((s) => [s.sha.slice(0, 6), s.status, s.history.join('>'), s.ref])

it('running while the agent runs (a later try finds it running), then moved to its end: one status per review', async () => {
  const head = sha('status-life')
  const { api, target } = await world(head)
  await target.started?.(startedOf(answer(head), head), pluginContext())
  expect(statuses(api)).toEqual([[head.slice(0, 6), 'running', 'running', 'feature-1']])
  // A retry's start: GitLab refuses running over running (400), which the target takes as done.
  await target.started?.(startedOf(answer(head), head, { attempt: 2 }), pluginContext())
  expect(api.requests().filter((r) => r.includes('/statuses/')).at(-1)).toMatch(/→ 400/)
  expect(await target.deliver(answer(head), deliveryContext())).toMatchObject({ posted: true })
  expect(statuses(api)).toEqual([[head.slice(0, 6), 'success', 'running>success', 'feature-1']])
})

it.each([
  ['skipped', 'canceled', 'Not reviewed: nothing to post'],
  ['superseded', 'canceled', 'Not reviewed: a newer event of this pull request came first'],
  ['failed', 'failed', 'Not reviewed: the review failed; the operator can see why'],
] as const)('a job that marked its head running and ended %s moves that status to %s, never success, saying why in public words', async (outcome, state, said) => {
  const head = sha(`status-ended-${outcome}`)
  const { api, target } = await world(head)
  await target.started?.(startedOf(answer(head), head), pluginContext())
  await target.ended?.(ended(answer(head), head, outcome), pluginContext())
  expect(statuses(api)).toEqual([[head.slice(0, 6), state, `running>${state}`, 'feature-1']])
  // The job's own reason is the operator's (it may quote the agent or a setting): never on the merge request.
  expect(api.statuses(PROJECT)[0]?.description).toBe(said)
})

it('a job that ended before its agent ran: failed for a review that failed for good, nothing for a skip (a filter, a pause)', async () => {
  const head = sha('status-unstarted')
  const { api, target } = await world(head)
  await target.ended?.(ended(answer(head), head, 'skipped', false), pluginContext())
  expect(statuses(api)).toEqual([])
  await target.ended?.(ended(answer(head), head, 'failed', false), pluginContext())
  expect(statuses(api)).toEqual([[head.slice(0, 6), 'failed', 'failed', 'feature-1']])
})

it('a head whose review stands: a later job\'s running status ends as the review\'s did, whether the job delivers (another job\'s review found) or fails', async () => {
  const head = sha('status-standing')
  const { api, target } = await world(head)
  await target.started?.(startedOf(answer(head), head), pluginContext())
  await target.deliver(answer(head), deliveryContext())
  // A reopen of the reviewed head (incremental reviews off: nothing remembers the review before the run).
  const reopen = answer(head, 'reopen')
  await target.started?.(startedOf(reopen, head), pluginContext())
  expect(await target.deliver(reopen, deliveryContext())).toMatchObject({ posted: false, outcome: 'skipped', reason: expect.stringContaining('already reviewed') })
  const again = answer(head, 'again')
  await target.started?.(startedOf(again, head), pluginContext())
  await target.ended?.(ended(again, head, 'failed'), pluginContext())
  expect(statuses(api)).toEqual([
    [head.slice(0, 6), 'success', 'running>success', 'feature-1'],
    [head.slice(0, 6), 'success', 'running>success', 'feature-1'],
    [head.slice(0, 6), 'success', 'running>success', 'feature-1'],
  ])
  // A finished status is left as it is by a later ending.
  await target.ended?.(ended(again, head, 'skipped'), pluginContext())
  expect(api.statuses(PROJECT)).toHaveLength(3)
})

it('the fake moves statuses as GitLab does: running over running and running to skipped are refused with GitLab\'s 400; a post after a finished one starts a new status; another ref is another status', async () => {
  const head = sha('status-machine')
  const { api } = await world(head)
  const post = async (state: string, ref = 'feature-1') => {
    const reply = await fetch(`${api.apiUrl}/projects/${encodeURIComponent(PROJECT)}/statuses/${head}`, { method: 'POST', headers: { 'private-token': api.token, 'content-type': 'application/json' }, body: JSON.stringify({ state, name: 'n', ref }) })
    return [reply.status, ((await reply.json()) as { message?: string }).message ?? 'ok']
  }
  expect(await post('pending')).toEqual([201, 'ok'])
  expect(await post('pending')).toEqual([400, 'Cannot transition status via :enqueue from :pending (Reason(s): Status cannot transition via "enqueue")'])
  expect(await post('running')).toEqual([201, 'ok'])
  expect(await post('running')).toEqual([400, 'Cannot transition status via :run from :running (Reason(s): Status cannot transition via "run")'])
  expect(await post('skipped')).toEqual([400, 'Cannot transition status via :skip from :running (Reason(s): Status cannot transition via "skip")'])
  expect(await post('running', 'other')).toEqual([201, 'ok'])
  expect(await post('success')).toEqual([201, 'ok'])
  expect(await post('failed')).toEqual([201, 'ok'])
  expect(api.statuses(PROJECT).map((s) => [s.ref, s.history.join('>')])).toEqual([['feature-1', 'pending>running>success'], ['other', 'running'], ['feature-1', 'failed']])
  const list = async (query: string) => {
    const reply = await fetch(`${api.apiUrl}/projects/${encodeURIComponent(PROJECT)}/repository/commits/${head}/statuses?${query}`, { headers: { 'private-token': api.token } })
    return ((await reply.json()) as { status: string, ref: string }[]).map((s) => `${s.ref}:${s.status}`)
  }
  expect(await list('name=n&ref=feature-1&all=true')).toEqual(['feature-1:success', 'feature-1:failed'])
  expect(await list('name=n&ref=feature-1')).toEqual(['feature-1:failed'])
})
