/**
 * What one review costs (issue 32, "Cost"; docs/reviews.md): the GitHub API calls a review makes (the check
 * marked in progress when the agent starts, then the delivery), and the time from the agent's answer (the
 * delivery starts) to the posted review with its check, on the fake GitHub, as an App (the real Octokit) and
 * through the real `gh`. The call counts are exact, so a change that adds a call shows here; the times are
 * printed for the docs (they are the fake's, on this machine, not GitHub's).
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { AgentAnswer, DeliveryTarget, JsonObject } from '../../src/core/types.js'
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

/** A pull request of `files` changed files at a new head, and an answer with `findings` findings on them (half inline, half folded). */
function pullRequest(pr: number, files: number, findings: number): AgentAnswer {
  const head = sha(`cost-${pr}`)
  api.setHead(REPO, pr, head)
  api.setFiles(REPO, pr, head, Array.from({ length: files }, (_, i) => ({ filename: `src/f${i}.ts`, status: 'modified' as const, patch: PATCH })))
  const document = {
    summary: 'The review.',
    findings: Array.from({ length: findings }, (_, i) => ({ path: `src/f${i % files}.ts`, line: i % 2 === 0 ? 3 : 40, severity: i === 0 ? 'major' : 'minor', body: `finding ${i}` })),
  }
  const payload: JsonObject = { action: 'synchronize', number: pr, installation: { id: INSTALLATION }, repository: { id: REPO_ID, full_name: REPO }, pull_request: { number: pr, head: { sha: head } } }
  return { route: 'pr-review', event: 'pull_request', deliveryId: `d-${pr}`, text: JSON.stringify(document), extra: { repo: REPO, pr_number: String(pr), mode: 'review', fail_on: 'critical' }, payload }
}

/**
 * Tells the target the agent starts (as the dispatcher does), then delivers `answer`: the calls each made (method
 * and path, without the query's values), in all, and the delivery's time.
 */
async function measure(target: DeliveryTarget, answer: AgentAnswer): Promise<{ start: string[], delivery: string[], calls: string[], ms: number }> {
  const calls = (from: number) => api.requests().slice(from).map((r) => r.replace(/\?.*$/, '').replace(/\/(pulls|check-runs)\/\d+/, '/$1/N').replace(/\/(statuses|commits)\/[0-9a-f]{40}/, '/$1/SHA'))
  const head = (answer.payload?.['pull_request'] as { head: { sha: string } }).head.sha
  const before = api.requests().length
  await target.started?.(startedOf(answer, head), pluginContext())
  const start = calls(before)
  const delivered = api.requests().length
  const started = performance.now()
  const receipt = await target.deliver(answer, deliveryContext())
  const ms = performance.now() - started
  expect(receipt).toMatchObject({ posted: true })
  const delivery = calls(delivered)
  return { start, delivery, calls: [...start, ...delivery], ms }
}

const figures: string[] = []
afterAll(() => {
  console.log(`review cost on the fake GitHub:\n${figures.join('\n')}`)
})

it('as an App: a first review reads the head, the reviews, the files once (100 a page), and writes the review and the check', async () => {
  const target = githubCommentDelivery({ app: createGithubApp({ appId: app.appId, privateKey: { pem: app.privateKey }, baseUrl: api.url, clock: clock.now }) })
  const warm = await measure(target, pullRequest(1, 10, 10))
  const small = await measure(target, pullRequest(2, 10, 10))
  const large = await measure(target, pullRequest(3, 250, 100))
  // The first delivery also mints the installation's token and asks the App's login once.
  expect(warm.calls.length - small.calls.length).toBe(2)
  // Before the agent runs: the check run, in progress.
  expect(small.start).toEqual(['POST /repos/octo-org/hello-world/check-runs'])
  expect(small.delivery).toEqual([
    'GET /repos/octo-org/hello-world/pulls/N',
    'GET /repos/octo-org/hello-world/pulls/N/reviews',
    'POST /graphql', // the route's open review threads: a finding one holds on its line is not posted twice
    'GET /repos/octo-org/hello-world/pulls/N/files',
    'POST /repos/octo-org/hello-world/pulls/N/reviews',
    'POST /graphql', // the threads again, after the post: those whose finding was not raised again are resolved
    'GET /repos/octo-org/hello-world/commits/SHA/check-runs', // the run marked in progress, found again
    'PATCH /repos/octo-org/hello-world/check-runs/N',
  ])
  // 250 files: 3 pages of files; 100 findings on the new side: 100 annotations, 50 a request, so 2 PATCHes.
  expect(large.calls.filter((c) => c.endsWith('/files'))).toHaveLength(3)
  expect(large.calls.filter((c) => c.startsWith('PATCH'))).toHaveLength(2)
  expect(large.calls).toHaveLength(small.calls.length + 3)
  figures.push(`  App, 10 files, 10 findings: ${small.calls.length} calls (${small.start.length} at the start), ${small.ms.toFixed(0)} ms (first delivery of the process: ${warm.calls.length} calls, ${warm.ms.toFixed(0)} ms)`)
  figures.push(`  App, 250 files, 100 findings: ${large.calls.length} calls, ${large.ms.toFixed(0)} ms`)
})

it('through gh: the same calls, each a gh process', async () => {
  const target = githubCommentDelivery({ env: api.env() })
  const warm = await measure(target, pullRequest(4, 10, 10))
  const small = await measure(target, pullRequest(5, 10, 10))
  // The first delivery also asks gh's login once.
  expect(warm.calls.length - small.calls.length).toBe(1)
  // gh reads the head through GraphQL (gh pr view).
  // Pending from the agent's start; a status is added, never edited, so the final one needs no search.
  expect(small.start).toEqual(['POST /repos/octo-org/hello-world/statuses/SHA'])
  expect(small.delivery).toEqual([
    'POST /graphql',
    'GET /repos/octo-org/hello-world/pulls/N/reviews',
    'POST /graphql', // the route's open review threads
    'GET /repos/octo-org/hello-world/pulls/N/files',
    'POST /repos/octo-org/hello-world/pulls/N/reviews',
    'POST /graphql', // the threads again, to resolve those not raised again
    'POST /repos/octo-org/hello-world/statuses/SHA',
  ])
  figures.push(`  gh, 10 files, 10 findings: ${small.calls.length} calls (${small.start.length} at the start), ${small.ms.toFixed(0)} ms (first delivery: ${warm.calls.length} calls, ${warm.ms.toFixed(0)} ms)`)
})
