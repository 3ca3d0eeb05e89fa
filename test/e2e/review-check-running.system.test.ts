/**
 * The check of a review while its agent runs, end to end through a person's `gh` (issue 32, item 5): `hookpilot
 * serve` as a child process, the real `gh` against the fake GitHub, an agent held until the test releases it. The
 * head's commit status is `pending` while the agent runs, then the review's state; an agent that fails for good
 * leaves `failure`, never `pending`. (As a GitHub App, review-check-life.test.ts; on GitLab, gitlab-review.)
 */
import { expect, it } from 'vitest'
import { documentReviews } from '../fixtures/review-documents.js'
import { REPO, sha } from '../fixtures/reviews.js'

const PATCH = '@@ -1,3 +1,4 @@\n const a = 1\n-const b = 2\n+const b = 3\n+const c = 4\n const d = 5'
const bot = documentReviews()

it('pending while the agent runs, then the review\'s state; an agent that fails for good ends failure, not pending', async () => {
  const w = await bot.start({ deliverExtra: { fail_on: 'major' } })
  const { port } = await w.serve()
  const states = (head: string) => w.api.statuses(REPO).filter((s) => s.sha === head).map((s) => [s.context, s.state])

  const head = sha('running-gh')
  w.api.setHead(REPO, 3, head)
  w.api.setFiles(REPO, 3, head, [{ filename: 'src/a.ts', status: 'modified', patch: PATCH }])
  await w.answer(head, JSON.stringify({ summary: 'One major.', findings: [{ path: 'src/a.ts', line: 3, severity: 'major', body: 'c is wrong.' }] }))
  await w.hold(head)
  await w.send(port, 3, head, 'delivery-running')
  // The agent has started and is held: the status says the review is running.
  await expect.poll(async () => (await w.runs().catch((): string[] => [])).includes(head), { timeout: 30_000 }).toBe(true)
  await expect.poll(() => states(head), { timeout: 30_000 }).toEqual([['hookpilot/pr-review', 'pending']])
  expect((await w.jobs()).map((j) => j.state)).toEqual(['running'])
  expect(w.api.reviews(REPO, 3)).toEqual([])
  await w.release(head)
  await expect.poll(async () => (await w.jobs()).map((j) => j.state), { timeout: 30_000 }).toEqual(['done'])
  expect(states(head)).toEqual([['hookpilot/pr-review', 'pending'], ['hookpilot/pr-review', 'failure']])
  expect(w.api.reviews(REPO, 3)).toHaveLength(1)

  // No answer for this head: the agent exits 1, the route tries once (agent.retry.attempts: 1), the job fails.
  const broken = sha('running-gh-fails')
  w.api.setHead(REPO, 4, broken)
  w.api.setFiles(REPO, 4, broken, [{ filename: 'src/a.ts', status: 'modified', patch: PATCH }])
  await w.send(port, 4, broken, 'delivery-fails')
  await expect.poll(async () => (await w.jobs()).find((j) => j.deliveryId === 'delivery-fails')?.state, { timeout: 30_000 }).toBe('failed')
  expect(states(broken)).toEqual([['hookpilot/pr-review', 'pending'], ['hookpilot/pr-review', 'failure']])
  expect(w.api.statuses(REPO).filter((s) => s.sha === broken).at(-1)?.description).toBe('Not reviewed: the review failed')
  expect(w.api.reviews(REPO, 4)).toEqual([])
}, 120_000)
