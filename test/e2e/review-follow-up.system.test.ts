/**
 * Issue 32, item 6, end to end: `hookpilot serve` (a child process, SQLite state, the real `gh` against the fake
 * GitHub). Head B was pushed but its `synchronize` was lost; only A's event arrives (late). The answer for A is
 * not posted on B, and a follow-up job of the route reviews B: one review, of B, with its status; A's status
 * never reads success. A second late event of A asks for the same follow-up and adds nothing.
 */
import { expect, it } from 'vitest'
import { documentReviews } from '../fixtures/review-documents.js'
import { REPO, sha } from '../fixtures/reviews.js'

const PATCH = '@@ -1,3 +1,4 @@\n const a = 1\n-const b = 2\n+const b = 3\n+const c = 4\n const d = 5'

const bot = documentReviews()

it('only the late event of A arrives while GitHub\'s head is B: A\'s answer is dropped and a follow-up job reviews B, once', async () => {
  const w = await bot.start({ deliverExtra: { fail_on: 'critical' } })
  const { api } = w
  const { port } = await w.serve()
  const [a, b] = [sha('follow-up-a'), sha('follow-up-b')]
  const sendA = (id: string) => w.send(port, 9, a, id)

  for (const head of [a, b]) api.setFiles(REPO, 9, head, [{ filename: 'src/a.ts', status: 'modified', patch: PATCH }])
  api.setHead(REPO, 9, b)
  await w.answer(a, JSON.stringify({ summary: 'the review of A', findings: [] }))
  await w.answer(b, JSON.stringify({ summary: 'the review of B', findings: [{ path: 'src/a.ts', line: 3, severity: 'minor', body: 'c changed.' }] }))
  await sendA('delivery-a')

  const followUp = `follow-up:${REPO}#9@${b}`
  await expect.poll(async () => (await w.jobs()).map((j) => [j.deliveryId, j.state]).sort(), { timeout: 45_000 }).toEqual([['delivery-a', 'superseded'], [followUp, 'done']])
  const reviews = api.reviews(REPO, 9)
  expect(reviews.map((r) => r.commitId)).toEqual([b])
  expect(reviews[0]?.body).toContain('the review of B')
  expect(await w.runs()).toEqual([a, b])
  // B: pending from its follow-up job's start, then its review's state. A: its job started while GitHub's head was
  // already B, so A was never marked as being reviewed; its answer was dropped and its status says so.
  expect(api.statuses(REPO).filter((s) => s.sha === b).map((s) => s.state)).toEqual(['pending', 'success'])
  expect(api.statuses(REPO).filter((s) => s.sha === a).map((s) => s.state)).toEqual(['error'])

  // Another late event of A: skipped as already reviewed (B has this route's review); no second follow-up.
  await sendA('delivery-a-again')
  await expect.poll(async () => (await w.jobs()).length, { timeout: 30_000 }).toBe(3)
  await expect.poll(async () => (await w.jobs()).find((j) => j.deliveryId === 'delivery-a-again')?.state, { timeout: 30_000 }).toBe('skipped')
  expect(api.reviews(REPO, 9)).toHaveLength(1)
}, 120_000)
