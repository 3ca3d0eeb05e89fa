/**
 * github_comment's review mode as a GitHub App: the real Octokit against the fake GitHub (which checks each
 * comment against the diff at commit_id and refuses a review whole, as GitHub does). One review per route and
 * head, posted by the App with a token that may write pull requests; the head's files read once.
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { AgentAnswer, JsonObject } from '../../src/core/types.js'
import { createGithubApp } from '../../src/plugins/github-app/app.js'
import { githubCommentDelivery } from '../../src/plugins/targets/github-comment/github-comment-target.js'
import { fakeClock } from '../../src/testing/clock.js'
import { deliveryContext } from '../../src/testing/context.js'
import { startFakeGithub, type FakeGithub } from '../../src/dev/github/server.js'
import { fakeGithubApp, type FakeGithubApp } from '../fixtures/fake-github-app.js'

const REPO = 'octo-org/hello-world'
const REPO_ID = 1296269
const INSTALLATION = 42
const HEAD = createHash('sha1').update('review-head').digest('hex')
const PATCH = '@@ -1,3 +1,4 @@\n const a = 1\n-const b = 2\n+const b = 3\n+const c = 4\n const d = 5'

const clock = fakeClock(Date.UTC(2026, 10, 24, 12, 0))
let app: FakeGithubApp
let api: FakeGithub
beforeAll(async () => {
  app = fakeGithubApp({ clock: clock.now })
  app.install(INSTALLATION, { [REPO_ID]: REPO })
  api = await startFakeGithub({ extensions: [app] })
  api.setHead(REPO, 1, HEAD)
  api.setFiles(REPO, 1, HEAD, [{ filename: 'src/a.ts', status: 'modified', patch: PATCH }])
})
afterAll(() => api.close())

const payload: JsonObject = {
  action: 'synchronize',
  number: 1,
  installation: { id: INSTALLATION },
  repository: { id: REPO_ID, full_name: REPO },
  pull_request: { number: 1, head: { sha: HEAD } },
}
const document = JSON.stringify({
  summary: 'One change to look at.',
  findings: [
    { path: 'src/a.ts', line: 2, severity: 'minor', body: 'b changed value.' },
    { path: 'src/a.ts', line: 2, side: 'LEFT', severity: 'nit', body: 'the old b.' },
    { path: 'src/a.ts', line: 40, severity: 'major', body: 'far from the diff.' },
  ],
})
const answer = (route: string): AgentAnswer => ({
  route, event: 'pull_request', deliveryId: `d-${route}`, text: document, extra: { repo: REPO, pr_number: '1', mode: 'review' }, payload,
})

it('posts one review as the App, inline where the diff allows, and a second delivery of the route finds it; the head\'s files are read once', async () => {
  const target = githubCommentDelivery({ app: createGithubApp({ appId: app.appId, privateKey: { pem: app.privateKey }, baseUrl: api.url, clock: clock.now }) })
  const first = await target.deliver(answer('pr-review'), deliveryContext())
  const again = await target.deliver(answer('pr-review'), deliveryContext())
  const other = await target.deliver(answer('security'), deliveryContext())

  const reviews = api.reviews(REPO, 1)
  expect(reviews.map((r) => [r.login, r.state, r.commitId])).toEqual([['hookpilot-review[bot]', 'COMMENTED', HEAD], ['hookpilot-review[bot]', 'COMMENTED', HEAD]])
  expect(reviews[0]?.comments.map((c) => `${c.side}${c.line}`)).toEqual(['RIGHT2', 'LEFT2'])
  expect(reviews[0]?.body).toContain('far from the diff.')
  const url = `https://github.com/${REPO}/pull/1#pullrequestreview-${reviews[0]?.id}`
  expect([first, again]).toEqual([{ posted: true, url }, { posted: true, url }])
  expect(other).toEqual({ posted: true, url: `https://github.com/${REPO}/pull/1#pullrequestreview-${reviews[1]?.id}` })
  expect(api.requests().filter((r) => r.startsWith('GET /repos/octo-org/hello-world/pulls/1/files'))).toHaveLength(1)
  expect(app.mints().at(-1)).toMatchObject({ permissions: { issues: 'write', pull_requests: 'write' } })
})
