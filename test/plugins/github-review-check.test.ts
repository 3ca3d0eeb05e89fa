/**
 * Review mode's head rules and its check, as a GitHub App: the real Octokit against the fake GitHub (which holds
 * check runs as GitHub validates them: App only, 50 annotations per request). The head reviewed is GitHub's head
 * when the delivery starts; a head already reviewed is skipped with the review's URL; an answer for an older
 * head is never posted on the newer one; every reviewed head gets a check, and `success` only on a reviewed head.
 * The check is one run per head and job: marked `in_progress` when the agent starts (`started`), and that same run
 * completed by the delivery.
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import type { AgentAnswer, JsonObject } from '../../src/core/types.js'
import { createGithubApp } from '../../src/plugins/github-app/app.js'
import { githubCommentDelivery } from '../../src/plugins/targets/github-comment/github-comment-target.js'
import { fakeClock } from '../../src/testing/clock.js'
import { deliveryContext } from '../../src/testing/context.js'
import { startFakeGithub, type FakeGithub } from '../../src/dev/github/server.js'
import { fakeGithubApp, type FakeGithubApp } from '../fixtures/fake-github-app.js'
import { startedOf } from '../fixtures/started-job.js'
import { pluginContext } from '../../src/testing/context.js'

const REPO = 'octo-org/hello-world'
const REPO_ID = 1296269
const INSTALLATION = 42
const sha = (name: string) => createHash('sha1').update(name).digest('hex')
const PATCH = '@@ -1,3 +1,4 @@\n const a = 1\n-const b = 2\n+const b = 3\n+const c = 4\n const d = 5'

const clock = fakeClock(Date.UTC(2026, 10, 27, 12, 0))
let app: FakeGithubApp
let api: FakeGithub
beforeAll(async () => {
  app = fakeGithubApp({ clock: clock.now })
  app.install(INSTALLATION, { [REPO_ID]: REPO })
  api = await startFakeGithub({ extensions: [app] })
})
afterAll(() => api.close())

let pr = 0
beforeEach(() => {
  pr += 1
})

/** Moves pull request `pr`'s head to `head` (a push), with its diff. */
function push(head: string): void {
  api.setHead(REPO, pr, head)
  api.setFiles(REPO, pr, head, [{ filename: 'src/a.ts', status: 'modified', patch: PATCH }])
}

type Finding = { path: string, line: number, side?: 'LEFT', severity: string, body: string }
const minor: Finding[] = [
  { path: 'src/a.ts', line: 2, severity: 'minor', body: 'b changed value.' },
  { path: 'src/a.ts', line: 2, side: 'LEFT', severity: 'nit', body: 'the old b.' },
]

/** The agent's answer for `head` (the event's payload names it), through route `route`. */
function answer(head: string, findings: Finding[] = minor, extra: Record<string, string> = {}, route = 'pr-review'): AgentAnswer {
  const payload: JsonObject = { action: 'synchronize', number: pr, installation: { id: INSTALLATION }, repository: { id: REPO_ID, full_name: REPO }, pull_request: { number: pr, head: { sha: head } } }
  return { route, event: 'pull_request', deliveryId: `d-${head}`, job: `job-${head.slice(0, 8)}`, text: JSON.stringify({ summary: `review of ${head}`, findings }), extra: { repo: REPO, pr_number: String(pr), mode: 'review', fail_on: 'major', ...extra }, payload }
}

const target = () => githubCommentDelivery({ app: createGithubApp({ appId: app.appId, privateKey: { pem: app.privateKey }, baseUrl: api.url, clock: clock.now }) })
const reviewsOf = () => api.reviews(REPO, pr)
const runsOn = (head: string) => api.checkRuns(REPO).filter((r) => r.headSha === head)

/** The rule the check keeps: a `success` run only on a head this route's review stands on. */
function expectNoUnbackedSuccess(): void {
  for (const run of api.checkRuns(REPO).filter((r) => r.conclusion === 'success')) {
    const prs = Array.from({ length: pr }, (_, i) => i + 1)
    const backed = prs.some((n) => api.reviews(REPO, n).some((r) => r.commitId === run.headSha && r.body.includes(`head=${run.headSha}`)))
    expect(backed, `success on ${run.headSha} without a review of it`).toBe(true)
  }
}

it('a reviewed head gets a check run that is in progress while the agent runs and completes success, the same run, with the new-file findings as annotations; the review and its footer name the head', async () => {
  const head = sha('check-success')
  push(head)
  const delivery = target()
  await delivery.started?.(startedOf(answer(head), head), pluginContext())
  const marked = runsOn(head)
  expect(marked.map((r) => [r.name, r.status, r.conclusion, r.externalId])).toEqual([['hookpilot/pr-review', 'in_progress', null, `job-${head.slice(0, 8)}`]])
  const receipt = await delivery.deliver(answer(head), deliveryContext())
  const [review] = reviewsOf()
  expect(receipt).toEqual({ posted: true, url: expect.stringContaining(`#pullrequestreview-${review?.id}`) })
  expect(review?.commitId).toBe(head)
  expect(review?.body.split('\n')[0]).toContain(`head=${head}`)
  expect(review?.body).toContain(`reviewed head ${head}</sub>`)
  const runs = runsOn(head)
  expect(runs.map((r) => [r.id, r.name, r.createdAs, r.status, r.conclusion, r.login])).toEqual([[marked[0]?.id, 'hookpilot/pr-review', 'in_progress', 'completed', 'success', 'hookpilot-review[bot]']])
  expect(runs[0]?.completedAt).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/))
  // The LEFT finding is in the review, not an annotation: an old line is not a line of the head's file.
  expect(runs[0]?.annotations).toEqual([{ path: 'src/a.ts', start_line: 2, end_line: 2, annotation_level: 'warning', message: 'b changed value.', title: 'minor' }])
  expect(app.mints().at(-1)).toMatchObject({ permissions: { issues: 'write', pull_requests: 'write', checks: 'write' } })
  expectNoUnbackedSuccess()
})

it('a finding at the route\'s fail_on fails the check; 99 annotations go 50 per request, all kept', async () => {
  const head = sha('check-failure')
  push(head)
  const findings: Finding[] = Array.from({ length: 99 }, (_, i) => ({ path: `src/f${i}.ts`, line: i + 1, severity: i === 7 ? 'major' : 'nit', body: `finding ${i}` }))
  const delivery = target()
  await delivery.started?.(startedOf(answer(head, findings), head), pluginContext())
  await delivery.deliver(answer(head, findings), deliveryContext())
  const [run] = runsOn(head)
  expect([run?.status, run?.conclusion]).toEqual(['completed', 'failure'])
  expect(run?.annotations.map((a) => a.message)).toEqual(findings.map((f) => f.body))
  const patches = api.requests().filter((r) => r === `PATCH /repos/octo-org/hello-world/check-runs/${run?.id}`)
  expect(patches).toHaveLength(2)
  expect(reviewsOf()).toHaveLength(1)
})

it('out of order: after head B is reviewed, a late answer for A is skipped as already reviewed, with the review\'s URL; A\'s review is never posted', async () => {
  const [a, b] = [sha('order-a'), sha('order-b')]
  push(a)
  push(b)
  const delivery = target()
  const first = await delivery.deliver(answer(b), deliveryContext())
  const late = await delivery.deliver(answer(a), deliveryContext())
  const reviews = reviewsOf()
  expect(reviews.map((r) => r.commitId)).toEqual([b])
  expect(first).toEqual({ posted: true, url: expect.stringContaining(`#pullrequestreview-${reviews[0]?.id}`) })
  expect(late).toEqual({ posted: false, outcome: 'skipped', reason: expect.stringMatching(new RegExp(`^already reviewed: .*${b.slice(0, 7)}.*#pullrequestreview-${reviews[0]?.id}.*${a.slice(0, 7)}`)) })
  expect(runsOn(b).map((r) => r.conclusion)).toEqual(['success'])
  expect(runsOn(a)).toEqual([])
  expectNoUnbackedSuccess()
})

it('the head moved during the run: the answer for A is not posted on B, it ends superseded naming both heads, the run A\'s start marked ends skipped; B\'s own answer is then reviewed once', async () => {
  const [a, b] = [sha('moved-a'), sha('moved-b')]
  push(a)
  const delivery = target()
  await delivery.started?.(startedOf(answer(a), a), pluginContext())
  push(b)
  const stale = await delivery.deliver(answer(a), deliveryContext())
  // The push of B may never come: the receipt asks for a follow-up job of B, keyed by pull request and head.
  expect(stale).toEqual({
    posted: false, outcome: 'superseded', reason: expect.stringMatching(new RegExp(`${a.slice(0, 7)}.*${b.slice(0, 7)}`)),
    followUp: { key: `${REPO}#${pr}@${b}`, payload: expect.objectContaining({ pull_request: { number: pr, head: { sha: b } } }) },
  })
  expect(reviewsOf()).toEqual([])
  expect(runsOn(a).map((r) => [r.createdAs, r.status, r.conclusion])).toEqual([['in_progress', 'completed', 'skipped']])
  expect(runsOn(b)).toEqual([])

  expect(await delivery.deliver(answer(b), deliveryContext())).toMatchObject({ posted: true })
  expect(await delivery.deliver(answer(b), deliveryContext())).toMatchObject({ posted: true })
  expect(reviewsOf().map((r) => r.commitId)).toEqual([b])
  expect(runsOn(b).map((r) => r.conclusion)).toEqual(['success'])
  expectNoUnbackedSuccess()
})

it('a try that posted the review and stopped before the check completed: the retry finds the review and completes the same run from the same answer', async () => {
  const head = sha('crash-check')
  push(head)
  const critical: Finding[] = [{ path: 'src/a.ts', line: 3, severity: 'critical', body: 'c is wrong.' }]
  await target().started?.(startedOf(answer(head, critical), head), pluginContext())
  // The first try's check completion fails (a passing failure); the review is already posted and recorded as progress.
  api.fail({ method: 'PATCH', path: /\/check-runs\/\d+$/, status: 502, body: { message: 'Bad Gateway' } })
  const first = deliveryContext()
  await expect(target().deliver(answer(head, critical), first)).rejects.toThrow(/check run/)
  expect(first.saved).toEqual([1])
  expect(reviewsOf()).toHaveLength(1)
  expect(runsOn(head).map((r) => r.status)).toEqual(['in_progress'])
  const retried = await target().deliver(answer(head, critical), deliveryContext(2, 1))
  expect(retried).toMatchObject({ posted: true })
  expect(reviewsOf()).toHaveLength(1)
  expect(runsOn(head).map((r) => [r.createdAs, r.status, r.conclusion])).toEqual([['in_progress', 'completed', 'failure']])
})

it('a later try of the job (a retry, a try after a crash) keeps the run its first try marked: one run per head', async () => {
  const head = sha('retry-mark')
  push(head)
  const delivery = target()
  await delivery.started?.(startedOf(answer(head), head), pluginContext())
  await delivery.started?.(startedOf(answer(head), head, { attempt: 2 }), pluginContext())
  await delivery.started?.(startedOf(answer(head), head, { attempt: 3 }), pluginContext())
  expect(runsOn(head).map((r) => r.status)).toEqual(['in_progress'])
  await delivery.deliver(answer(head), deliveryContext())
  expect(runsOn(head).map((r) => [r.createdAs, r.status, r.conclusion])).toEqual([['in_progress', 'completed', 'success']])
})

it('marks nothing for a head the delivery will not conclude (the event names an older head) or one the route reviewed already', async () => {
  const [a, b] = [sha('late-a'), sha('late-b')]
  push(a)
  push(b)
  const delivery = target()
  // A late event for A, while GitHub's head is B: the answer is taken as about A, so neither head is marked.
  await delivery.started?.(startedOf(answer(a), b), pluginContext())
  // B was reviewed by this route (the review memory's previous head): its review and its check stand.
  await delivery.started?.(startedOf(answer(b), b, { previousHead: b }), pluginContext())
  expect([...runsOn(a), ...runsOn(b)]).toEqual([])
})

it('another job of a head already reviewed: the run its start marked ends as the head\'s standing check says, never left in progress', async () => {
  const head = sha('second-job')
  push(head)
  const delivery = target()
  const first = answer(head, [{ path: 'src/a.ts', line: 3, severity: 'major', body: 'c is wrong.' }])
  await delivery.started?.(startedOf(first, head), pluginContext())
  await delivery.deliver(first, deliveryContext())
  // A reopen of the same head (incremental reviews off: nothing remembers that the head was reviewed).
  const second: AgentAnswer = { ...answer(head, []), deliveryId: 'd-reopen', job: 'job-reopen' }
  await delivery.started?.(startedOf(second, head), pluginContext())
  expect(runsOn(head).map((r) => r.status)).toEqual(['completed', 'in_progress'])
  expect(await delivery.deliver(second, deliveryContext())).toMatchObject({ posted: true, url: expect.stringContaining(`#pullrequestreview-${reviewsOf()[0]?.id}`) })
  const runs = runsOn(head)
  expect(runs.map((r) => [r.externalId, r.status, r.conclusion])).toEqual([[`job-${head.slice(0, 8)}`, 'completed', 'failure'], ['job-reopen', 'completed', 'failure']])
  expect(runs[1]?.output?.title).toBe(runs[0]?.output?.title)
  expect(reviewsOf()).toHaveLength(1)
})

it('deliver_extra.check: false writes no check and asks no checks permission', async () => {
  const head = sha('no-check')
  push(head)
  await target().started?.(startedOf(answer(head, minor, { check: 'false' }), head), pluginContext())
  expect(await target().deliver(answer(head, minor, { check: 'false' }), deliveryContext())).toMatchObject({ posted: true })
  expect(runsOn(head)).toEqual([])
  expect(app.mints().at(-1)?.permissions).toEqual({ issues: 'write', pull_requests: 'write' })
})

it('the fake refuses a check run from a person\'s token, as GitHub does', async () => {
  const person = await fetch(`${api.url}/repos/${REPO}/check-runs`, { method: 'POST', headers: { authorization: `Bearer ${api.token}` }, body: JSON.stringify({ name: 'x', head_sha: sha('x') }) })
  expect([person.status, ((await person.json()) as { message: string }).message]).toEqual([403, 'You must authenticate via a GitHub App.'])
})

it('the fake validates a completion as GitHub does: a conclusion with status completed or a completed_at, ISO 8601 times; it lists a head\'s runs by name', async () => {
  const head = sha('fake-validation')
  push(head)
  const delivery = target()
  await delivery.started?.(startedOf(answer(head), head), pluginContext())
  const [run] = runsOn(head)
  const token = app.mints().at(-1)?.token ?? ''
  const patch = async (body: Record<string, unknown>) => {
    const reply = await fetch(`${api.url}/repos/${REPO}/check-runs/${run?.id}`, { method: 'PATCH', headers: { authorization: `token ${token}` }, body: JSON.stringify(body) })
    return [reply.status, ((await reply.json()) as { errors?: string[] }).errors?.[0]]
  }
  expect(await patch({ status: 'completed' })).toEqual([422, '"conclusion" is required when "status" is "completed"'])
  expect(await patch({ completed_at: '2026-11-27T12:00:00Z' })).toEqual([422, '"conclusion" is required when "completed_at" is given'])
  expect(await patch({ conclusion: 'success', completed_at: 'yesterday' })).toEqual([422, '"completed_at" must be an ISO 8601 timestamp (YYYY-MM-DDTHH:MM:SSZ)'])
  expect(runsOn(head).map((r) => r.status)).toEqual(['in_progress'])
  const list = async (query: string) => {
    const reply = await fetch(`${api.url}/repos/${REPO}/commits/${head}/check-runs?${query}`, { headers: { authorization: `token ${token}` } })
    return ((await reply.json()) as { check_runs: { id: number, status: string }[] }).check_runs.map((r) => r.status)
  }
  expect(await list('check_name=hookpilot/pr-review')).toEqual(['in_progress'])
  expect(await list('check_name=other')).toEqual([])
  expect(await list('check_name=hookpilot/pr-review&status=completed')).toEqual([])
})
