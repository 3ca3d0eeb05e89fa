/**
 * A review's check run over its life, end to end as a GitHub App (issue 32, item 5): a gateway with the fake
 * GitHub (the real Octokit, real HTTP) and an agent the test holds. The head's check run is `in_progress` while
 * the agent runs and that same run is completed with the review's conclusion; an agent that fails for good
 * completes it `failure`; a review skipped for a silent output, or by the repository's policy filter, gets a
 * `neutral` check; an event the route's `actions` drop is no job and gets no check at all.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { startFakeGithub, type FakeGithub } from '../../src/dev/github/server.js'
import type { AgentResult } from '../../src/core/types.js'
import { fakeGithubApp, type FakeGithubApp } from '../fixtures/fake-github-app.js'
import { SECRET, testGateway, type TestGateway } from '../fixtures/gateway.js'
import { githubHeaders } from '../fixtures/github.js'
import { sha } from '../fixtures/reviews.js'

const REPO = 'octo-org/hello-world'
const REPO_ID = 1296269
const BASE = sha('check-life-base')
const PATCH = '@@ -1,3 +1,4 @@\n const a = 1\n-const b = 2\n+const b = 3\n+const c = 4\n const d = 5'

let app: FakeGithubApp
let api: FakeGithub
beforeAll(async () => {
  app = fakeGithubApp()
  app.install(42, { [REPO_ID]: REPO })
  api = await startFakeGithub({ extensions: [app] })
})
afterAll(() => api.close())

let current: TestGateway | undefined
afterEach(async () => {
  await current?.gateway.close()
  current = undefined
})

/** A gateway whose route `review` reviews pull requests as the App, its agent answering `agent(head)`. */
async function start(agent: (head: string) => Promise<AgentResult>, route: Record<string, unknown> = {}): Promise<TestGateway> {
  current = await testGateway({
    agent: (input) => agent(/head ([0-9a-f]{40})/.exec(input.prompt)?.[1] ?? ''),
    pollMs: 20,
    config: {
      agent: { runner: 'recording', retry: { attempts: 1 } },
      platforms: { github_app: { app_id: app.appId, private_key: app.privateKey, api_url: api.url }, github: { mode: 'review' } },
    },
    routes: {
      review: {
        secret: SECRET,
        events: ['pull_request'],
        actions: ['opened', 'synchronize'],
        prompt: 'Review head {review.head}.',
        deliver: 'github_comment',
        deliver_extra: { repo: '{repository.full_name}', pr_number: '{number}', fail_on: 'major' },
        concurrency: { key: '{repository.full_name}#{number}' },
        silent_outputs: ['NOTHING'],
        ...route,
      },
    },
  })
  return current
}

/** Pull request `number` at `head`, changing `files` on {@link BASE}. */
function pullRequest(number: number, head: string, files = ['src/a.ts']): void {
  api.setHead(REPO, number, head)
  api.setFiles(REPO, number, head, files.map((filename) => ({ filename, status: 'modified' as const, patch: PATCH })))
  api.state.repository.setPullDetails(REPO, number, { baseSha: BASE, baseRef: 'main' })
}

async function send(gw: TestGateway, number: number, head: string, action = 'synchronize'): Promise<number> {
  const payload = { action, number, installation: { id: 42 }, repository: { id: REPO_ID, full_name: REPO }, pull_request: { number, head: { sha: head } } }
  const body = Buffer.from(JSON.stringify(payload))
  const res = await gw.gateway.fetch(new Request('http://127.0.0.1/webhooks/review', { method: 'POST', headers: githubHeaders('pull_request', body, SECRET, sha(`${head}${action}${Math.random()}`)), body }))
  return res.status
}

const runsOn = (head: string) => api.checkRuns(REPO).filter((r) => r.headSha === head).map((r) => ({ id: r.id, createdAs: r.createdAs, status: r.status, conclusion: r.conclusion, title: r.output?.title }))
const jobStates = async (gw: TestGateway) => (await gw.state.jobs.list({ route: 'review' })).map((j) => j.state)

it('in progress while the agent runs, then that same run completed with the review\'s conclusion', async () => {
  let release = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  let running = false
  const gw = await start(async () => {
    running = true
    await held
    return { ok: true, text: JSON.stringify({ summary: 'One major.', findings: [{ path: 'src/a.ts', line: 3, severity: 'major', body: 'c is wrong.' }] }) }
  })
  const head = sha('life-review')
  pullRequest(1, head)
  expect(await send(gw, 1, head)).toBe(202)
  await expect.poll(() => running).toBe(true)
  await expect.poll(() => runsOn(head)).toEqual([{ id: expect.any(Number), createdAs: 'in_progress', status: 'in_progress', conclusion: null, title: undefined }])
  const [marked] = runsOn(head)
  expect(api.reviews(REPO, 1)).toEqual([])
  release()
  await expect.poll(() => jobStates(gw)).toEqual(['done'])
  expect(runsOn(head)).toEqual([{ id: marked?.id, createdAs: 'in_progress', status: 'completed', conclusion: 'failure', title: '1 finding at major or above' }])
  expect(api.reviews(REPO, 1)).toHaveLength(1)
})

it('an agent that fails for good: the run marked in progress ends failure, never left running', async () => {
  const gw = await start(async () => ({ ok: false, reason: 'the model refused', retryable: false }))
  const head = sha('life-fails')
  pullRequest(2, head)
  await send(gw, 2, head)
  await expect.poll(() => jobStates(gw)).toEqual(['failed'])
  expect(runsOn(head)).toEqual([{ id: expect.any(Number), createdAs: 'in_progress', status: 'completed', conclusion: 'failure', title: 'Not reviewed: the review failed' }])
  expect(api.reviews(REPO, 2)).toEqual([])
})

it('a silent output: the run marked in progress ends neutral', async () => {
  const gw = await start(async () => ({ ok: true, text: 'NOTHING' }))
  const head = sha('life-silent')
  pullRequest(3, head)
  await send(gw, 3, head)
  await expect.poll(() => jobStates(gw)).toEqual(['skipped'])
  expect(runsOn(head)).toEqual([{ id: expect.any(Number), createdAs: 'in_progress', status: 'completed', conclusion: 'neutral', title: 'Not reviewed: nothing to post' }])
})

it('a review the repository\'s policy filter skips: a neutral check, created completed (no agent ran, nothing was in progress)', async () => {
  const gw = await start(async () => ({ ok: true, text: 'unused' }), { policy: { commands: { bot: 'hookpilot' } } })
  api.state.repository.setContent(REPO, BASE, '.hookpilot.yml', 'filters:\n  ignore_paths: ["*.lock"]\n')
  const head = sha('life-filtered')
  pullRequest(4, head, ['yarn.lock'])
  await send(gw, 4, head)
  await expect.poll(() => jobStates(gw)).toEqual(['skipped'])
  expect(gw.runs).toEqual([])
  expect(runsOn(head)).toEqual([{ id: expect.any(Number), createdAs: 'completed', status: 'completed', conclusion: 'neutral', title: "Not reviewed: skipped by the repository's policy" }])
  expect(api.checkRuns(REPO).find((r) => r.headSha === head)?.output?.summary).toContain('filters.ignore_paths')
})

it('an event the route\'s actions drop is no job, and its head gets no check', async () => {
  const gw = await start(async () => ({ ok: true, text: 'unused' }))
  const head = sha('life-labeled')
  pullRequest(5, head)
  expect(await send(gw, 5, head, 'labeled')).toBe(200)
  expect(await jobStates(gw)).toEqual([])
  expect(runsOn(head)).toEqual([])
})
