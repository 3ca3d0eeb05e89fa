/**
 * Issue 32, item 3, the crash it names: `hookpilot serve` (a child process, SQLite state, the real `gh` against
 * the fake GitHub) is killed with SIGKILL at the moment between the review's post and its record: the fake kills it
 * as soon as it has answered the create, before the gateway can read the answer and record the post. The job is
 * left `running` at stage deliver with nothing recorded; the next start recovers it and delivers the stored answer
 * again (the agent does not run again): the review's marker is found, nothing is posted twice, and the head's
 * status, left pending by the dead process, completes.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { startFakeGithub } from '../../src/dev/github/server.js'
import { runCli, startCli, type RunningCli } from '../fixtures/cli.js'
import { githubExample, githubHeaders } from '../fixtures/github.js'
import { fixtureAgent } from '../fixtures/process.js'
import { sha } from '../fixtures/reviews.js'

const SECRET = 'review-crash-window-secret'
const REPO = 'Codertocat/Hello-World'
const PATCH = '@@ -1,3 +1,4 @@\n const a = 1\n-const b = 2\n+const b = 3\n+const c = 4\n const d = 5'
const DOCUMENT = {
  summary: 'One problem.',
  findings: [
    { path: 'src/a.ts', line: 3, severity: 'critical', body: 'c is wrong.', suggestion: 'const c = 5' },
    { path: 'README.md', line: 1, severity: 'nit', body: 'Not in the diff.' },
  ],
}

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

it('kill -9 between the review\'s post and its record, then a restart: exactly one review of the head, its status completed, the agent run once', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-review-crash-'))
  cleanup.push(() => rm(dir, { recursive: true, force: true }))
  let serving: RunningCli | undefined
  let killed = false
  // The moment: GitHub has created the review and answered; the gateway has not read the answer yet.
  const api = await startFakeGithub({
    onRequest: (record) => {
      if (killed || record.method !== 'POST' || !/\/pulls\/\d+\/reviews$/.test(record.target) || record.status !== 200) return
      killed = true
      serving?.child.kill('SIGKILL')
    },
  })
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
  const serve = async () => {
    const gateway = startCli(['serve', '--config', config, '--port', '0'], { env, cwd: dir })
    cleanup.push(async () => {
      gateway.child.kill('SIGKILL')
      await gateway.exited
    })
    const [, port] = await gateway.waitFor(/Listening on 127\.0\.0\.1:(\d+)/)
    return { gateway, port: Number(port) }
  }
  const jobs = async () => JSON.parse((await runCli(['jobs', 'list', '--json', '--config', config], { env, cwd: dir })).stdout) as { id: string, state: string, stage: string, progress: number, runs: number }[]

  const head = sha('crash-window')
  api.setHead(REPO, 7, head)
  api.setFiles(REPO, 7, head, [{ filename: 'src/a.ts', status: 'modified', patch: PATCH }])
  await writeFile(join(dir, head), JSON.stringify(DOCUMENT))
  const first = await serve()
  serving = first.gateway
  const payload = structuredClone(githubExample('pull_request', 'synchronize')) as { number: number, pull_request: Record<string, unknown> & { head: Record<string, unknown> } }
  payload.number = 7
  payload.pull_request = { ...payload.pull_request, number: 7, head: { ...payload.pull_request.head, sha: head } }
  const body = Buffer.from(JSON.stringify(payload))
  const res = await fetch(`http://127.0.0.1:${first.port}/webhooks/pr-review`, { method: 'POST', headers: githubHeaders('pull_request', body, SECRET, 'delivery-crash'), body })
  expect(res.status).toBe(202)
  await first.gateway.exited
  expect(killed).toBe(true)

  // Killed in the window: the review is on the pull request, the job still running at stage deliver, nothing recorded.
  expect(api.reviews(REPO, 7)).toHaveLength(1)
  expect((await jobs()).map((j) => [j.state, j.stage, j.progress])).toEqual([['running', 'deliver', 0]])
  expect(api.statuses(REPO).map((s) => s.state)).toEqual(['pending'])

  const second = await serve()
  serving = second.gateway
  await expect.poll(async () => (await jobs()).map((j) => j.state), { timeout: 30_000 }).toEqual(['done'])
  const reviews = api.reviews(REPO, 7)
  expect(reviews.map((r) => r.commitId)).toEqual([head])
  expect(api.requests().filter((r) => r.startsWith(`POST /repos/${REPO}/pulls/7/reviews`))).toHaveLength(1)
  // The recovered try found the review by its marker, and completed the status the dead process left pending.
  expect(api.statuses(REPO).map((s) => [s.sha, s.state])).toEqual([[head, 'pending'], [head, 'pending'], [head, 'failure']])
  expect((await readFile(join(dir, 'runs'), 'utf8')).trim().split('\n')).toEqual([head])
  expect((await jobs())[0]?.runs).toBe(1)
  second.gateway.child.kill('SIGTERM')
  expect(await second.gateway.exited).toBe(0)
}, 90_000)
