/**
 * Issue 32, item 6, end to end: `hookpilot serve` (a child process, SQLite state, the real `gh` against the fake
 * GitHub). Head B was pushed but its `synchronize` was lost; only A's event arrives (late). The answer for A is
 * not posted on B, and a follow-up job of the route reviews B: one review, of B, with its status; A's status
 * never reads success. A second late event of A asks for the same follow-up and adds nothing.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { startFakeGithub } from '../../src/dev/github/server.js'
import { runCli, startCli } from '../fixtures/cli.js'
import { githubExample, githubHeaders } from '../fixtures/github.js'
import { fixtureAgent } from '../fixtures/process.js'
import { sha } from '../fixtures/reviews.js'

const SECRET = 'review-follow-up-secret'
const REPO = 'Codertocat/Hello-World'
const PATCH = '@@ -1,3 +1,4 @@\n const a = 1\n-const b = 2\n+const b = 3\n+const c = 4\n const d = 5'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

it('only the late event of A arrives while GitHub\'s head is B: A\'s answer is dropped and a follow-up job reviews B, once', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-review-follow-up-'))
  cleanup.push(() => rm(dir, { recursive: true, force: true }))
  const api = await startFakeGithub()
  cleanup.push(() => api.close())
  const config = join(dir, 'config.yaml')
  await writeFile(config, `agent:
  runner: command
  command: ${JSON.stringify(fixtureAgent('review-document'))}
  sandbox: off
  timeout_seconds: 60
  retry: { attempts: 1 }
platforms:
  webhook:
    extra:
      host: 127.0.0.1
      port: 0
      shutdown_grace_seconds: 1
      routes:
        pr-review:
          secret: ${SECRET}
          events: [pull_request]
          prompt: "head {pull_request.head.sha}"
          concurrency: { key: "{repository.full_name}#{pull_request.number}" }
          deliver: github_comment
          deliver_extra: { repo: "{repository.full_name}", pr_number: "{number}", mode: review, fail_on: critical }
`)
  const env: NodeJS.ProcessEnv = { ...api.env({}), AGENT_ANSWERS: dir }
  const gateway = startCli(['serve', '--config', config, '--port', '0'], { env, cwd: dir })
  cleanup.push(async () => {
    gateway.child.kill('SIGKILL')
    await gateway.exited
  })
  const [, port] = await gateway.waitFor(/Listening on 127\.0\.0\.1:(\d+)/)
  const jobs = async () => JSON.parse((await runCli(['jobs', 'list', '--json', '--config', config], { env, cwd: dir })).stdout) as { deliveryId: string, state: string }[]
  const sendA = async (id: string) => {
    const payload = structuredClone(githubExample('pull_request', 'synchronize')) as { number: number, pull_request: Record<string, unknown> & { head: Record<string, unknown> } }
    payload.number = 9
    payload.pull_request = { ...payload.pull_request, number: 9, head: { ...payload.pull_request.head, sha: a } }
    const body = Buffer.from(JSON.stringify(payload))
    const res = await fetch(`http://127.0.0.1:${port}/webhooks/pr-review`, { method: 'POST', headers: githubHeaders('pull_request', body, SECRET, id), body })
    expect(res.status).toBe(202)
  }

  const [a, b] = [sha('follow-up-a'), sha('follow-up-b')]
  for (const head of [a, b]) api.setFiles(REPO, 9, head, [{ filename: 'src/a.ts', status: 'modified', patch: PATCH }])
  api.setHead(REPO, 9, b)
  await writeFile(join(dir, a), JSON.stringify({ summary: 'the review of A', findings: [] }))
  await writeFile(join(dir, b), JSON.stringify({ summary: 'the review of B', findings: [{ path: 'src/a.ts', line: 3, severity: 'minor', body: 'c changed.' }] }))
  await sendA('delivery-a')

  const followUp = `follow-up:${REPO}#9@${b}`
  await expect.poll(async () => (await jobs()).map((j) => [j.deliveryId, j.state]).sort(), { timeout: 45_000 }).toEqual([['delivery-a', 'superseded'], [followUp, 'done']])
  const reviews = api.reviews(REPO, 9)
  expect(reviews.map((r) => r.commitId)).toEqual([b])
  expect(reviews[0]?.body).toContain('the review of B')
  expect((await readFile(join(dir, 'runs'), 'utf8')).trim().split('\n')).toEqual([a, b])
  expect(api.statuses(REPO).filter((s) => s.sha === b).map((s) => s.state)).toEqual(['pending', 'success'])
  expect(api.statuses(REPO).filter((s) => s.sha === a).map((s) => s.state)).toEqual(['pending', 'error'])

  // Another late event of A: skipped as already reviewed (B has this route's review); no second follow-up.
  await sendA('delivery-a-again')
  await expect.poll(async () => (await jobs()).length, { timeout: 30_000 }).toBe(3)
  await expect.poll(async () => (await jobs()).find((j) => j.deliveryId === 'delivery-a-again')?.state, { timeout: 30_000 }).toBe('skipped')
  expect(api.reviews(REPO, 9)).toHaveLength(1)
}, 120_000)
