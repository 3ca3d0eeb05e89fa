/**
 * Review mode's check for the jobs that end without a review (issue 32, item 5): the target's `ended` hook,
 * as a GitHub App (the real Octokit against the fake GitHub) and through the real `gh` (a commit status). A head
 * that was not reviewed never reads `success`: `neutral` for a silent output, `cancelled` for a job its group
 * superseded, `failure` for a review that failed; the run the job's start marked `in_progress` is the one
 * completed, never left running; a head the route has reviewed keeps its check. The check links to its job on the
 * status page when its address is configured.
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import * as v from 'valibot'
import type { AgentAnswer, EndedJob, JsonObject } from '../../src/core/types.js'
import { createGithubApp } from '../../src/plugins/github-app/app.js'
import { githubCommentDelivery } from '../../src/plugins/targets/github-comment/github-comment-target.js'
import { fakeClock } from '../../src/testing/clock.js'
import { deliveryContext, pluginContext } from '../../src/testing/context.js'
import { startFakeGithub, type FakeGithub } from '../../src/dev/github/server.js'
import { fakeGithubApp, type FakeGithubApp } from '../fixtures/fake-github-app.js'
import { startedOf } from '../fixtures/started-job.js'
import { ghStatuses } from '../../src/plugins/targets/github-comment/gh-statuses.js'

const REPO = 'octo-org/hello-world'
const REPO_ID = 1296269
const INSTALLATION = 42
const STATUS_URL = 'https://hooks.example.com/status'
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

let pr = 100
beforeEach(() => {
  pr += 1
})

function push(head: string): void {
  api.setHead(REPO, pr, head)
  api.setFiles(REPO, pr, head, [{ filename: 'src/a.ts', status: 'modified', patch: PATCH }])
}

const payloadOf = (head: string): JsonObject => ({ action: 'synchronize', number: pr, installation: { id: INSTALLATION }, repository: { id: REPO_ID, full_name: REPO }, pull_request: { number: pr, head: { sha: head } } })
const extra = (more: Record<string, string> = {}) => ({ repo: REPO, pr_number: String(pr), mode: 'review', fail_on: 'major', ...more })

function ended(head: string, outcome: EndedJob['outcome'], more: Record<string, string> = {}): EndedJob {
  return { route: 'pr-review', event: 'pull_request', deliveryId: `d-${head}`, job: `job-${head.slice(0, 6)}`, extra: extra(more), payload: payloadOf(head), outcome, reason: `the reason for ${outcome}` }
}

function answer(head: string, job?: string): AgentAnswer {
  return { route: 'pr-review', event: 'pull_request', deliveryId: `d-${head}`, text: JSON.stringify({ summary: `review of ${head}`, findings: [] }), extra: extra(), payload: payloadOf(head), ...(job === undefined ? {} : { job }) }
}

/** What the start of `ended(head, ...)`'s job was told (its answer would be `answer(head, its job)`). */
const startOf = (head: string) => startedOf(answer(head, `job-${head.slice(0, 6)}`), head)

const asApp = (statusUrl?: string) => githubCommentDelivery({ app: createGithubApp({ appId: app.appId, privateKey: { pem: app.privateKey }, baseUrl: api.url, clock: clock.now }), statusUrl })
const runsOn = (head: string) => api.checkRuns(REPO).filter((r) => r.headSha === head)

it.each([
  ['skipped', 'neutral', 'Not reviewed: nothing to post'],
  ['superseded', 'cancelled', 'Cancelled: a newer event came'],
  ['failed', 'failure', 'Not reviewed: the review failed'],
] as const)('a job that ended %s without a review completes its head\'s check %s, never success, saying why in public words (never the job\'s own reason)', async (outcome, conclusion, title) => {
  const head = sha(`ended-${outcome}`)
  push(head)
  await asApp().ended?.(ended(head, outcome), pluginContext())
  const runs = runsOn(head)
  expect(runs.map((r) => [r.name, r.status, r.conclusion, r.output?.title])).toEqual([['hookpilot/pr-review', 'completed', conclusion, title]])
  expect(runs[0]?.output?.summary).toMatch(/^Head [0-9a-f]{40} was not reviewed: (nothing to post|a newer event of this pull request came first|the review failed; the operator can see why)$/)
  expect(runs[0]?.output?.summary).not.toContain('the reason for')
  expect(api.reviews(REPO, pr)).toEqual([])
})

it.each([
  ['skipped', 'neutral'],
  ['superseded', 'cancelled'],
  ['failed', 'failure'],
] as const)('a job that marked its head in progress and ended %s completes that same run %s', async (outcome, conclusion) => {
  const head = sha(`started-ended-${outcome}`)
  push(head)
  const target = asApp()
  await target.started?.(startOf(head), pluginContext())
  const [marked] = runsOn(head)
  expect(marked?.status).toBe('in_progress')
  await target.ended?.({ ...ended(head, outcome), variables: startOf(head).variables }, pluginContext())
  expect(runsOn(head).map((r) => [r.id, r.createdAs, r.status, r.conclusion])).toEqual([[marked?.id, 'in_progress', 'completed', conclusion]])
})

it('a head the route has reviewed keeps its check: a later job of it that ends skipped writes none, and a run it marked ends as the check says', async () => {
  const head = sha('ended-after-review')
  push(head)
  const target = asApp()
  expect(await target.deliver(answer(head), deliveryContext())).toMatchObject({ posted: true })
  await target.ended?.(ended(head, 'skipped'), pluginContext())
  expect(runsOn(head).map((r) => r.conclusion)).toEqual(['success'])
  // A later job of the same head whose start marked it (nothing remembered the review) and whose agent failed.
  await target.started?.(startOf(head), pluginContext())
  await target.ended?.({ ...ended(head, 'failed'), variables: startOf(head).variables }, pluginContext())
  expect(runsOn(head).map((r) => [r.status, r.conclusion])).toEqual([['completed', 'success'], ['completed', 'success']])
})

it('writes nothing for a route that is not in review mode, a route without the check, or an event that names no head', async () => {
  const head = sha('ended-nothing')
  push(head)
  const target = asApp()
  await target.ended?.(ended(head, 'failed', { mode: 'sticky' }), pluginContext())
  await target.ended?.(ended(head, 'failed', { check: 'false' }), pluginContext())
  await target.ended?.({ ...ended(head, 'failed'), payload: { number: pr } }, pluginContext())
  expect(runsOn(head)).toEqual([])
})

it('with the status page\'s address, the check links to the job (details_url), reviewed or not', async () => {
  const [reviewed, failed] = [sha('link-reviewed'), sha('link-failed')]
  push(reviewed)
  const target = asApp(STATUS_URL)
  await target.deliver(answer(reviewed, '17'), deliveryContext())
  expect(runsOn(reviewed).map((r) => r.detailsUrl)).toEqual([`${STATUS_URL}#job-17`])
  push(failed)
  await target.ended?.(ended(failed, 'failed'), pluginContext())
  expect(runsOn(failed).map((r) => [r.conclusion, r.detailsUrl])).toEqual([['failure', `${STATUS_URL}#job-job-${failed.slice(0, 6)}`]])
  // Without the address there is no link.
  const plain = sha('link-none')
  push(plain)
  await asApp().deliver(answer(plain, '18'), deliveryContext())
  expect(runsOn(plain).map((r) => r.detailsUrl)).toEqual([null])
})

it('a try after a crash between the post and its record (try 2, nothing recorded) finds the review and completes the run its start marked; a resend (try 1, another job) leaves it to that job', async () => {
  const head = sha('ended-crash-window')
  push(head)
  const target = asApp()
  await target.started?.(startedOf(answer(head, 'job-1'), head), pluginContext())
  // The first try: the review is created, the check is left in progress (the process died before the record).
  api.fail({ method: 'PATCH', path: /\/check-runs\/\d+$/, status: 502, body: { message: 'Bad Gateway' }, times: 1 })
  await expect(target.deliver(answer(head, 'job-1'), deliveryContext())).rejects.toThrow(/check run/)
  expect(await target.deliver(answer(head, 'job-2'), deliveryContext(1, 0))).toMatchObject({ posted: true })
  expect(runsOn(head).map((r) => r.status)).toEqual(['in_progress'])
  expect(await target.deliver(answer(head, 'job-1'), deliveryContext(2, 0))).toMatchObject({ posted: true })
  expect(runsOn(head).map((r) => [r.createdAs, r.status, r.conclusion])).toEqual([['in_progress', 'completed', 'success']])
  expect(api.reviews(REPO, pr)).toHaveLength(1)
})

it('through gh: a commit status with the same rules (error where a check would be neutral, cancelled or skipped), linked to the job', async () => {
  const head = sha('ended-gh')
  push(head)
  const target = githubCommentDelivery({ env: api.env(), statusUrl: STATUS_URL })
  // Pending from the agent's start; the ending is one more status (GitHub's newest of a context wins).
  await target.started?.(startOf(head), pluginContext())
  await target.ended?.({ ...ended(head, 'skipped'), variables: startOf(head).variables }, pluginContext())
  await target.ended?.(ended(head, 'failed'), pluginContext())
  const statuses = api.statuses(REPO).filter((s) => s.sha === head)
  expect(statuses.map((s) => [s.context, s.state, s.targetUrl])).toEqual([
    ['hookpilot/pr-review', 'pending', `${STATUS_URL}#job-job-${head.slice(0, 6)}`],
    ['hookpilot/pr-review', 'error', `${STATUS_URL}#job-job-${head.slice(0, 6)}`],
    ['hookpilot/pr-review', 'failure', `${STATUS_URL}#job-job-${head.slice(0, 6)}`],
  ])
})

it('through gh: a pending status a job left on a head whose review stands is followed by the state before it', async () => {
  const head = sha('gh-settle')
  push(head)
  const post = (state: string, description: string) => fetch(`${api.url}/repos/${REPO}/statuses/${head}`, { method: 'POST', headers: { authorization: `token ${api.token}` }, body: JSON.stringify({ state, context: 'hookpilot/pr-review', description }) })
  await post('failure', '1 finding at major or above')
  await post('pending', 'hookpilot is reviewing this head')
  const checks = ghStatuses({ ghPath: 'gh', repo: REPO, prNumber: String(pr), timeoutMs: 20_000, env: api.env(), signal: new AbortController().signal })
  const fallback = { conclusion: 'neutral' as const, title: 'fallback', summary: '', annotations: [] }
  await checks.settleRunning('hookpilot/pr-review', head, fallback, {})
  // Nothing is running any more: a second settle writes nothing.
  await checks.settleRunning('hookpilot/pr-review', head, fallback, {})
  expect(api.statuses(REPO).filter((s) => s.sha === head).map((s) => [s.state, s.description])).toEqual([
    ['failure', '1 finding at major or above'], ['pending', 'hookpilot is reviewing this head'], ['failure', '1 finding at major or above'],
  ])
})

it('asks for a review document on routes in review mode only', () => {
  const route = (mode?: string) => ({ deliverExtra: mode === undefined ? {} : { mode } }) as unknown as Parameters<NonNullable<ReturnType<typeof asApp>['answerFormat']>>[0]
  expect(asApp().answerFormat?.(route('review'))).toBe('review')
  expect(asApp().answerFormat?.(route('sticky'))).toBe('text')
  expect(githubCommentDelivery({ mode: 'review' }).answerFormat?.(route())).toBe('review')
})

it('platforms.github.status_url: refused unless an http(s) address; used only with the status page on, else a warning at start', async () => {
  const { githubCommentPlugin } = await import('../../src/plugins/targets/github-comment/plugin.js')
  const schema = githubCommentPlugin.options as v.GenericSchema
  expect(v.safeParse(schema, { status_url: 'hooks.example.com/status' }).success).toBe(false)
  expect(v.safeParse(schema, { status_url: `${STATUS_URL}#x` }).success).toBe(false)
  const options = v.parse(schema, { mode: 'review', status_url: `${STATUS_URL}/` }) as Parameters<typeof githubCommentPlugin.setup>[0]
  const head = sha('plugin-link')
  push(head)
  const linkOf = async (statusPage: unknown) => {
    const ctx = { ...pluginContext(), config: { status_page: statusPage }, baseDir: '/', childEnv: api.env(), resources: { get: () => undefined }, clock: Date.now, workdir: process.cwd(), redact: (t: string) => t }
    const plugin = await githubCommentPlugin.setup(options, ctx as never)
    const [target] = plugin.deliveryTargets ?? []
    await target?.ended?.(ended(head, 'failed'), pluginContext())
    return { link: api.statuses(REPO).filter((s) => s.sha === head).at(-1)?.targetUrl, warned: ctx.log.text().includes('status_url is set but the status page is off') }
  }
  expect(await linkOf({ enabled: true, token: 'x'.repeat(16) })).toEqual({ link: `${STATUS_URL}#job-job-${head.slice(0, 6)}`, warned: false })
  expect(await linkOf({ enabled: 'false' })).toEqual({ link: null, warned: true })
})
