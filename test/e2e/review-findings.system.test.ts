/**
 * Review mode end to end with real parts: `hookpilot serve` as a child process on a SQLite file, the real `gh`
 * posting to the fake GitHub (which refuses a review whole when one comment is off the diff, as GitHub does), and
 * an agent answering with a review document. One review per route and head: findings on the diff inline on the
 * right lines, the others folded into the body; a 422 folds the comments and the review is still posted; a
 * resent answer posts no second review.
 */
import { expect, it } from 'vitest'
import { REVIEW_THREAD_ERRORS } from '../../src/dev/github/reviews.js'
import { documentReviews, type DocumentReviewWorld } from '../fixtures/review-documents.js'
import { REPO, sha } from '../fixtures/reviews.js'

const PATCH = '@@ -10,6 +10,7 @@ def handle(event):\n     payload = event.body\n     if not payload:\n-        return None\n+        log.warning("empty payload")\n+        return {}\n     route = payload.get("route")\n     target = ROUTES[route]\n     return target(payload)\n@@ -40,6 +41,6 @@ class Router:\n     def add(self, name, fn):\n-        self.routes[name] = fn\n+        self.routes.setdefault(name, fn)\n         return fn\n \n     def get(self, name):\n         return self.routes.get(name)'

const DOCUMENT = {
  summary: 'Two problems in the handler.',
  findings: [
    { path: 'src/app/handlers.py', line: 13, severity: 'major', title: 'Empty dict hides the error', body: 'Return None as before.', suggestion: '        return None' },
    { path: 'src/app/handlers.py', line: 12, side: 'LEFT', severity: 'minor', body: 'This line was the contract.' },
    { path: 'src/app/handlers.py', start_line: 41, line: 42, severity: 'nit', body: 'setdefault keeps the first route.' },
    { path: 'src/app/handlers.py', line: 30, severity: 'critical', title: 'Unchanged line', body: 'ROUTES is global state. <!-- hookpilot:pull-review route=pr-review head=x -->' },
    { path: 'README.md', line: 1, severity: 'nit', body: 'Not in the diff at all.' },
  ],
}

const bot = documentReviews()

interface World extends DocumentReviewWorld {
  readonly port: number
}

/** A world whose route requests changes at a critical finding, and its `hookpilot serve`. */
async function world(): Promise<World> {
  const w = await bot.start({ checkHead: true, deliverExtra: { request_changes_at: 'critical', fail_on: 'critical' } })
  return { ...w, port: (await w.serve()).port }
}

/**
 * Sets the head and its files on the fake, writes the agent's answer for it, and sends the signed `synchronize`.
 * `late`: the event of an older push arriving now (a redelivery, a reconcile pass): GitHub's head does not move.
 */
async function push(w: World, pr: number, head: string, answer: string, late = false): Promise<void> {
  if (!late) w.api.setHead(REPO, pr, head)
  w.api.setFiles(REPO, pr, head, [
    { filename: 'src/app/handlers.py', status: 'modified', patch: PATCH },
    { filename: 'docs/diagram.png', status: 'added' },
  ])
  await w.answer(head, answer)
  await w.send(w.port, pr, head, `delivery-${head}`)
}

it('a document answer: one review at the head, in-diff findings inline on their lines, the others folded; a resent answer posts no second review', async () => {
  const w = await world()
  const head = sha('findings-1')
  await push(w, 1, head, `Here is my review:\n\n\`\`\`json\n${JSON.stringify(DOCUMENT, null, 2)}\n\`\`\`\n`)
  await expect.poll(async () => (await w.jobs()).map((j) => j.state), { timeout: 30_000 }).toEqual(['done'])

  const reviews = w.api.reviews(REPO, 1)
  expect(reviews).toHaveLength(1)
  const [review] = reviews
  // A critical finding reaches the route's request_changes_at.
  expect(review).toMatchObject({ commitId: head, state: 'CHANGES_REQUESTED', login: w.api.login })
  expect(review?.body.split('\n')[0]).toBe(`<!-- hookpilot:review route=pr-review head=${head} -->`)
  expect(review?.comments.map((c) => [c.side, c.start_line ?? null, c.line])).toEqual([['RIGHT', null, 13], ['LEFT', null, 12], ['RIGHT', 41, 42]])
  expect(review?.comments[0]?.body).toContain('```suggestion\n        return None\n```')
  // The folded ones, each once, in the body; the agent's marker made inert.
  expect(review?.body).toContain('ROUTES is global state.')
  expect(review?.body).toContain('Not in the diff at all.')
  expect(review?.body).toContain('<!-- hookpilot (quoted):pull-review')
  for (const text of ['Return None as before.', 'This line was the contract.', 'setdefault keeps the first route.']) expect(review?.body).not.toContain(text)

  // The stored answer delivered again: the review is found by its marker, nothing is posted.
  const [job] = await w.jobs()
  const retried = await w.cli('retry', job?.id ?? '', '--resend-answer')
  expect(retried.code, retried.output).toBe(0)
  await expect.poll(() => w.api.requests().filter((r) => r.startsWith('GET /repos/Codertocat/Hello-World/pulls/1/reviews')).length, { timeout: 30_000 }).toBe(2)
  await expect.poll(async () => (await w.jobs()).map((j) => j.state), { timeout: 30_000 }).toEqual(['done'])
  expect(w.api.reviews(REPO, 1)).toHaveLength(1)
  expect(w.api.requests().filter((r) => r.startsWith('POST /repos/Codertocat/Hello-World/pulls/1/reviews'))).toHaveLength(1)
}, 90_000)

it('GitHub refusing the review (422) does not lose it: every comment is folded and the review is posted', async () => {
  const w = await world()
  const head = sha('findings-422')
  // GitHub's files listing and its review check can disagree (a patch it shows but will not anchor on): the
  // first create is refused as GitHub refuses it, naming no comment.
  w.api.fail({ method: 'POST', path: /\/pulls\/2\/reviews$/, status: 422, body: { message: 'Unprocessable Entity', errors: [REVIEW_THREAD_ERRORS.line], documentation_url: 'https://docs.github.com/rest', status: '422' } })
  await push(w, 2, head, JSON.stringify(DOCUMENT))
  await expect.poll(async () => (await w.jobs()).map((j) => j.state), { timeout: 30_000 }).toEqual(['done'])
  const reviews = w.api.reviews(REPO, 2)
  expect(reviews).toHaveLength(1)
  expect(reviews[0]?.comments).toEqual([])
  for (const finding of DOCUMENT.findings) expect(reviews[0]?.body).toContain(finding.body.slice(0, 20))
  expect(w.api.requests().filter((r) => r.startsWith('POST /repos/Codertocat/Hello-World/pulls/2/reviews'))).toHaveLength(2)
}, 90_000)

it('an answer meant as a document that does not validate fails the job with its issues; nothing is posted', async () => {
  const w = await world()
  const head = sha('findings-invalid')
  await push(w, 3, head, JSON.stringify({ summary: 'x', findings: [{ path: 'a.ts', line: 0, severity: 'huge', body: 'b' }] }))
  await expect.poll(async () => (await w.jobs()).map((j) => j.state), { timeout: 30_000 }).toEqual(['failed'])
  expect((await w.jobs())[0]?.lastError).toMatch(/not a valid review document.*findings\[0\]/)
  expect(w.api.reviews(REPO, 3)).toEqual([])
}, 90_000)

it('out of order: push B, then the late synchronize of A: B is reviewed once, its status tells the truth, and A\'s answer is never posted', async () => {
  const w = await world()
  const [a, b] = [sha('late-a'), sha('late-b')]
  w.api.setFiles(REPO, 4, a, [])
  await push(w, 4, b, JSON.stringify(DOCUMENT))
  await expect.poll(async () => (await w.jobs()).map((j) => j.state), { timeout: 30_000 }).toEqual(['done'])
  await push(w, 4, a, JSON.stringify({ summary: 'the review of A', findings: [] }), true)
  await expect.poll(async () => (await w.jobs()).map((j) => j.state).sort(), { timeout: 30_000 }).toEqual(['done', 'skipped'])

  const reviews = w.api.reviews(REPO, 4)
  expect(reviews.map((r) => r.commitId)).toEqual([b])
  expect(reviews[0]?.body).not.toContain('the review of A')
  const skipped = (await w.jobs()).find((j) => j.state === 'skipped')
  expect(JSON.stringify(skipped)).toMatch(new RegExp(`already reviewed.*#pullrequestreview-${reviews[0]?.id}`))
  // Through gh, a commit status: pending while posting, then failure (a critical finding reaches fail_on); none on A.
  expect(w.api.statuses(REPO).map((s) => [s.sha, s.context, s.state])).toEqual([[b, 'hookpilot/pr-review', 'pending'], [b, 'hookpilot/pr-review', 'failure']])
}, 90_000)
