/**
 * Incremental reviews end to end with real parts: `hookpilot serve` as a child process on a SQLite file (its
 * notes), the real `gh` against the fake GitHub (its commit graph answers compare, its review threads GraphQL),
 * and an agent answering with review documents. The second push's prompt is told `incremental`, the previous
 * head and the open findings; the finding raised again on its line is not posted twice, the one not raised
 * again has its thread resolved. After a force-push the prompt is told `full`.
 */
import { expect, it } from 'vitest'
import { documentReviews } from '../fixtures/review-documents.js'
import { REPO, sha } from '../fixtures/reviews.js'

const PATCH = '@@ -10,6 +10,7 @@ def handle(event):\n     payload = event.body\n     if not payload:\n-        return None\n+        log.warning("empty payload")\n+        return {}\n     route = payload.get("route")\n     target = ROUTES[route]\n     return target(payload)\n@@ -40,6 +41,6 @@ class Router:\n     def add(self, name, fn):\n-        self.routes[name] = fn\n+        self.routes.setdefault(name, fn)\n         return fn\n \n     def get(self, name):\n         return self.routes.get(name)'
const EMPTY_DICT = { path: 'src/app/handlers.py', line: 13, severity: 'major', title: 'Empty dict hides the error', body: 'Return None as before.' }
const SETDEFAULT = { path: 'src/app/handlers.py', line: 42, severity: 'nit', title: 'setdefault keeps the first route', body: 'Say so in a comment.' }
const WARNING = { path: 'src/app/handlers.py', line: 12, severity: 'minor', title: 'Log the route', body: 'The warning names no route.' }

const bot = documentReviews()

it('the second push is reviewed incrementally with the open findings; a held finding is not posted twice, a dropped one is resolved; a force-push is reviewed in full', async () => {
  const w = await bot.start({
    sqliteState: true,
    prompt: 'head {review.head} mode {review.mode} previous {review.previous_head}\nopen:\n{review.open_findings}',
    deliverExtra: { check: 'false' },
  })
  const { api } = w
  const { port } = await w.serve()
  const states = async () => (await w.jobs()).map((j) => j.state)

  const base = sha('incremental-base')
  api.addCommit(REPO, base)
  async function push(head: string, parents: string[], findings: unknown[]): Promise<void> {
    api.addCommit(REPO, head, parents)
    api.setHead(REPO, 1, head)
    api.setBase(REPO, 1, base)
    api.setFiles(REPO, 1, head, [{ filename: 'src/app/handlers.py', status: 'modified', patch: PATCH }])
    await w.answer(head, JSON.stringify({ summary: `review of ${head.slice(0, 7)}`, findings }))
    await w.send(port, 1, head, `delivery-${head}`)
  }

  const [a, b, c] = [sha('incremental-a'), sha('incremental-b'), sha('incremental-c')]
  await push(a, [base], [EMPTY_DICT, SETDEFAULT])
  await expect.poll(states, { timeout: 30_000 }).toEqual(['done'])
  expect((await w.prompts())[0]).toBe(`head ${a} mode full previous \nopen:\nnone`)
  expect(api.threads(REPO, 1).map((t) => t.root.line)).toEqual([13, 42])

  await push(b, [a], [EMPTY_DICT, WARNING])
  await expect.poll(states, { timeout: 30_000 }).toEqual(['done', 'done'])
  expect((await w.prompts())[1]).toBe(`head ${b} mode incremental previous ${a}\nopen:\n- major src/app/handlers.py:13: Empty dict hides the error\n- nit src/app/handlers.py:42: setdefault keeps the first route`)
  const second = api.reviews(REPO, 1)[1]
  expect(second?.commitId).toBe(b)
  expect(second?.comments.map((comment) => comment.line)).toEqual([12])
  expect(second?.body).toContain('Still open from an earlier review (1)')
  expect(api.threads(REPO, 1).map((t) => [t.root.line, t.resolved])).toEqual([[13, false], [42, true], [12, false]])

  // A force-push: C does not descend from B.
  await push(c, [base], [EMPTY_DICT])
  await expect.poll(states, { timeout: 30_000 }).toEqual(['done', 'done', 'done'])
  expect((await w.prompts())[2]).toMatch(new RegExp(`^head ${c} mode full previous ${b}\\nopen:\\n- major src/app/handlers.py:13: Empty dict hides the error\\n- minor src/app/handlers.py:12: Log the route$`))
}, 120_000)
