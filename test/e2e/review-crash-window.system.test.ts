/**
 * Issue 32, item 3, the crash it names: `hookpilot serve` (a child process, SQLite state, the real `gh` against
 * the fake GitHub) is killed with SIGKILL at the moment between the review's post and its record: the fake kills it
 * as soon as it has answered the create, before the gateway can read the answer and record the post. The job is
 * left `running` at stage deliver with nothing recorded; the next start recovers it and delivers the stored answer
 * again (the agent does not run again): the review's marker is found, nothing is posted twice, and the head's
 * status, left pending by the dead process, completes.
 */
import { expect, it } from 'vitest'
import type { RunningCli } from '../fixtures/cli.js'
import { documentReviews } from '../fixtures/review-documents.js'
import { REPO, sha } from '../fixtures/reviews.js'

const PATCH = '@@ -1,3 +1,4 @@\n const a = 1\n-const b = 2\n+const b = 3\n+const c = 4\n const d = 5'
const DOCUMENT = {
  summary: 'One problem.',
  findings: [
    { path: 'src/a.ts', line: 3, severity: 'critical', body: 'c is wrong.', suggestion: 'const c = 5' },
    { path: 'README.md', line: 1, severity: 'nit', body: 'Not in the diff.' },
  ],
}

const bot = documentReviews()

it('kill -9 between the review\'s post and its record, then a restart: exactly one review of the head, its status completed, the agent run once', async () => {
  let serving: RunningCli | undefined
  let killed = false
  // The moment: GitHub has created the review and answered; the gateway has not read the answer yet.
  const w = await bot.start({
    deliverExtra: { fail_on: 'critical' },
    github: {
      onRequest: (record) => {
        if (killed || record.method !== 'POST' || !/\/pulls\/\d+\/reviews$/.test(record.target) || record.status !== 200) return
        killed = true
        serving?.child.kill('SIGKILL')
      },
    },
  })
  const { api } = w

  const head = sha('crash-window')
  api.setHead(REPO, 7, head)
  api.setFiles(REPO, 7, head, [{ filename: 'src/a.ts', status: 'modified', patch: PATCH }])
  await w.answer(head, JSON.stringify(DOCUMENT))
  const first = await w.serve()
  serving = first.gateway
  await w.send(first.port, 7, head, 'delivery-crash')
  await first.gateway.exited
  expect(killed).toBe(true)

  // Killed in the window: the review is on the pull request, the job still running at stage deliver, nothing recorded.
  expect(api.reviews(REPO, 7)).toHaveLength(1)
  expect((await w.jobs()).map((j) => [j.state, j.stage, j.progress])).toEqual([['running', 'deliver', 0]])
  expect(api.statuses(REPO).map((s) => s.state)).toEqual(['pending'])

  const second = await w.serve()
  serving = second.gateway
  await expect.poll(async () => (await w.jobs()).map((j) => j.state), { timeout: 30_000 }).toEqual(['done'])
  expect(api.reviews(REPO, 7).map((r) => r.commitId)).toEqual([head])
  expect(api.requests().filter((r) => r.startsWith(`POST /repos/${REPO}/pulls/7/reviews`))).toHaveLength(1)
  // The recovered try found the review by its marker, and completed the status the dead process left pending
  // (written when its agent started): one more status, the final one.
  expect(api.statuses(REPO).map((s) => [s.sha, s.state])).toEqual([[head, 'pending'], [head, 'failure']])
  expect(await w.runs()).toEqual([head])
  expect((await w.jobs())[0]?.runs).toBe(1)
  second.gateway.child.kill('SIGTERM')
  expect(await second.gateway.exited).toBe(0)
}, 90_000)
