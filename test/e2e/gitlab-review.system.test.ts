/**
 * GitLab merge request reviews end to end with real parts: `hookpilot serve` as a child process on a SQLite file,
 * GitLab's `Merge Request Hook` payloads (test/fixtures/gitlab/) sent with a secret token, an agent answering a
 * review document, and the gitlab_mr target posting to the fake GitLab (src/dev/gitlab), which places positions
 * as GitLab does. One note and one set of discussions per head, across redeliveries, `jobs retry` and a `kill -9`
 * between a post and its record; a push edits the note and resolves what is not raised again; a `close` is not
 * reviewed; the token never reaches the gateway's output. The head's status is `running` while the agent runs,
 * then the review's, and `failed` (never left running) when the agent fails for good.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { startFakeGitlab, type FakeGitlab } from '../../src/dev/gitlab/server.js'
import type { FakeGitlabDiff } from '../../src/dev/gitlab/state.js'
import { runCli, startCli, type RunningCli } from '../fixtures/cli.js'
import { gitlabHeaders, gitlabServeConfig, mergeRequestHook, type MergeRequestAction } from '../fixtures/gitlab.js'
import { sha } from '../fixtures/reviews.js'

const SECRET = 'gitlab-review-secret'
const PROJECT = 'gitlabhq/gitlab-test'
const PATCH = '@@ -10,6 +10,7 @@ def handle(event):\n     payload = event.body\n     if not payload:\n-        return None\n+        log.warning("empty payload")\n+        return {}\n     route = payload.get("route")\n     target = ROUTES[route]\n     return target(payload)\n'
const DIFFS: readonly FakeGitlabDiff[] = [{ old_path: 'src/app/handlers.py', new_path: 'src/app/handlers.py', diff: PATCH }]
const DOCUMENT = JSON.stringify({
  summary: 'One problem.',
  findings: [
    { path: 'src/app/handlers.py', line: 13, severity: 'critical', title: 'Empty dict', body: 'Return None as before.' },
    { path: 'src/app/handlers.py', line: 12, side: 'LEFT', severity: 'minor', body: 'The old contract.' },
    { path: 'src/app/handlers.py', line: 14, severity: 'nit', body: 'Context line.' },
    { path: 'README.md', line: 1, severity: 'nit', body: 'Not in the diff.' },
  ],
})

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

interface World {
  readonly api: FakeGitlab
  readonly config: string
  readonly env: NodeJS.ProcessEnv
  readonly dir: string
  serve(): Promise<{ cli: RunningCli, port: number }>
}

async function world(): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-gitlab-review-'))
  cleanup.push(() => rm(dir, { recursive: true, force: true }))
  const api = await startFakeGitlab()
  cleanup.push(() => api.close())
  const config = join(dir, 'config.yaml')
  await writeFile(config, gitlabServeConfig(api.apiUrl, SECRET, `          events: ["Merge Request Hook"]
          actions: [open, reopen, update]
          prompt: "head {object_attributes.last_commit.id}"
          concurrency: { key: "{project.path_with_namespace}!{object_attributes.iid}" }
          deliver: gitlab_mr
          deliver_extra:
            project: "{project.path_with_namespace}"
            mr_iid: "{object_attributes.iid}"
            fail_on: critical
            status_url: https://hooks.example.com/status
`))
  const env: NodeJS.ProcessEnv = { GITLAB_TOKEN: api.token, AGENT_ANSWERS: dir }
  return {
    api,
    config,
    env,
    dir,
    async serve() {
      const cli = startCli(['serve', '--config', config, '--port', '0'], { env, cwd: dir })
      cleanup.push(async () => {
        cli.child.kill('SIGKILL')
        await cli.exited
      })
      const [, port] = await cli.waitFor(/Listening on 127\.0\.0\.1:(\d+)/)
      return { cli, port: Number(port) }
    },
  }
}

/** Pushes `head` to the fake (unless `push` is false), writes the agent's answer and sends the hook of `action`. */
async function send(w: World, port: number, action: MergeRequestAction, head: string, uuid: string, answer = DOCUMENT, push = true): Promise<Response> {
  if (push) w.api.push(PROJECT, 1, head, DIFFS)
  await writeFile(join(w.dir, head), answer)
  const body = JSON.stringify(mergeRequestHook(action, { project: PROJECT, iid: 1, head }))
  return fetch(`http://127.0.0.1:${port}/webhooks/mr-review`, { method: 'POST', headers: gitlabHeaders(SECRET, uuid), body })
}

async function jobs(w: World): Promise<{ id: string, state: string, lastError?: string }[]> {
  const listed = await runCli(['jobs', 'list', '--json', '--config', w.config], { env: w.env, cwd: w.dir })
  return JSON.parse(listed.stdout) as { id: string, state: string }[]
}

const ownNotes = (w: World) => w.api.notes(PROJECT, 1).filter((n) => n.type === null && !n.system)

it('open, a redelivery, jobs retry, an update with oldrev, a close: one note edited per head, one discussion set per head, statuses', async () => {
  const w = await world()
  const { cli, port } = await w.serve()
  const a = sha('gitlab-a')
  expect((await send(w, port, 'open', a, 'uuid-open')).status).toBe(202)
  await expect.poll(async () => (await jobs(w)).map((j) => j.state), { timeout: 30_000 }).toEqual(['done'])
  expect(ownNotes(w)).toHaveLength(1)
  expect(w.api.discussions(PROJECT, 1)).toHaveLength(3)
  expect(ownNotes(w)[0]!.body).toContain('Not in the diff.')
  expect(w.api.statuses(PROJECT).map((s) => [s.sha, s.history])).toEqual([[a, ['running', 'failed']]])
  expect(w.api.positionErrors()).toBe(0)

  // GitLab's retry of the same delivery: a duplicate, nothing runs.
  const again = await send(w, port, 'open', a, 'uuid-open', DOCUMENT, false)
  expect(again.status).toBe(200)
  // The stored answer delivered again: the note names this job's delivery, nothing new is posted.
  const [job] = await jobs(w)
  const retried = await runCli(['jobs', 'retry', job!.id, '--resend-answer', '--config', w.config], { env: w.env, cwd: w.dir })
  expect(retried.code, retried.output).toBe(0)
  // Three reads of the merge request: the prompt's {review.*} before the agent ran, its delivery, the resend's.
  await expect.poll(() => w.api.requests().filter((r) => r.startsWith(`GET /projects/${encodeURIComponent(PROJECT)}/merge_requests/1?`) || r.startsWith(`GET /projects/${encodeURIComponent(PROJECT)}/merge_requests/1 `)).length, { timeout: 30_000 }).toBe(3)
  await expect.poll(async () => (await jobs(w)).map((j) => j.state), { timeout: 30_000 }).toEqual(['done'])
  expect(ownNotes(w)).toHaveLength(1)
  expect(w.api.discussions(PROJECT, 1)).toHaveLength(3)

  // A push: update with oldrev. The note is edited, the discussions not raised again are resolved.
  const b = sha('gitlab-b')
  const fixed = JSON.stringify({ summary: 'Better.', findings: [JSON.parse(DOCUMENT).findings[1]] })
  expect((await send(w, port, 'update', b, 'uuid-update', fixed)).status).toBe(202)
  await expect.poll(async () => (await jobs(w)).map((j) => j.state).sort(), { timeout: 30_000 }).toEqual(['done', 'done'])
  expect(ownNotes(w)).toHaveLength(1)
  expect(ownNotes(w)[0]!.body.split('\n')[1]).toContain(`head=${b}`)
  expect(w.api.discussions(PROJECT, 1).map((d) => d.notes[0]!.resolved)).toEqual([true, false, true, false])
  expect(w.api.statuses(PROJECT).find((s) => s.sha === b)?.status).toBe('success')

  // A close is not a route action, but it ends the merge request's group (docs/costs.md): stored as a job that
  // is already skipped (closed) and runs nothing; the reviewed jobs stay done.
  expect((await send(w, port, 'close', b, 'uuid-close', fixed, false)).status).toBe(202)
  expect((await jobs(w)).map((j) => j.state).sort()).toEqual(['done', 'done', 'skipped'])
  expect(cli.output()).not.toContain(w.api.token)
}, 120_000)

it('kill -9 between a post and its record, twice (after the first discussion, after the note): one discussion set and one note', async () => {
  const w = await world()
  const first = await w.serve()
  const head = sha('gitlab-crash')
  // The first discussion is made, then its answer never comes: the gateway is killed while it waits.
  w.api.fail({ method: 'POST', path: /\/discussions$/, status: 'hang', afterWrite: true })
  await send(w, first.port, 'open', head, 'uuid-crash')
  await expect.poll(() => w.api.requests().some((r) => r.includes('/discussions → hang')), { timeout: 30_000 }).toBe(true)
  first.cli.child.kill('SIGKILL')
  await first.cli.exited

  // Again, after the note is written.
  w.api.fail({ method: 'POST', path: /\/notes$/, status: 'hang', afterWrite: true })
  const second = await w.serve()
  await expect.poll(() => w.api.requests().some((r) => r.includes('/notes → hang')), { timeout: 30_000 }).toBe(true)
  second.cli.child.kill('SIGKILL')
  await second.cli.exited

  await w.serve()
  await expect.poll(async () => (await jobs(w)).map((j) => j.state), { timeout: 30_000 }).toEqual(['done'])
  const markers = w.api.discussions(PROJECT, 1).map((d) => d.notes[0]!.body.split('\n')[0])
  expect(markers).toHaveLength(3)
  expect(new Set(markers).size).toBe(3)
  expect(ownNotes(w)).toHaveLength(1)
  expect(w.api.statuses(PROJECT).map((s) => s.status)).toEqual(['failed'])
  expect(w.api.positionErrors()).toBe(0)
}, 120_000)

it('out of order: the update of B, then a late update of A (a redelivery after an outage): B reviewed once, A skipped, never posted on B', async () => {
  const w = await world()
  const { port } = await w.serve()
  const a = sha('gitlab-late-a')
  const b = sha('gitlab-late-b')
  w.api.push(PROJECT, 1, a, DIFFS)
  expect((await send(w, port, 'update', b, 'uuid-b')).status).toBe(202)
  await expect.poll(async () => (await jobs(w)).map((j) => j.state), { timeout: 30_000 }).toEqual(['done'])
  // A's event arrives now; GitLab's head is still B.
  expect((await send(w, port, 'update', a, 'uuid-a', DOCUMENT, false)).status).toBe(202)
  await expect.poll(async () => (await jobs(w)).map((j) => j.state).sort(), { timeout: 30_000 }).toEqual(['done', 'skipped'])
  const skipped = (await jobs(w)).find((j) => j.state === 'skipped') as { note?: string, lastError?: string } | undefined
  expect(JSON.stringify(skipped)).toContain('already reviewed')
  expect(ownNotes(w)).toHaveLength(1)
  expect(ownNotes(w)[0]!.body.split('\n')[1]).toContain(`head=${b}`)
  expect(w.api.discussions(PROJECT, 1).every((d) => d.notes[0]!.body.includes(`head=${b}`))).toBe(true)
  expect(w.api.statuses(PROJECT).map((s) => [s.sha, s.status])).toEqual([[b, 'failed']])
}, 120_000)

it('the status is running while the agent runs, then moved to the review\'s state; an agent that fails for good moves it to failed', async () => {
  const w = await world()
  const { port } = await w.serve()
  const head = sha('gitlab-running')
  await writeFile(join(w.dir, `${head}.hold`), '')
  expect((await send(w, port, 'open', head, 'uuid-running')).status).toBe(202)
  // The agent has started and is held: the merge request's head shows the review running.
  await expect.poll(async () => (await readFile(join(w.dir, 'runs'), 'utf8').catch(() => '')).includes(head), { timeout: 30_000 }).toBe(true)
  await expect.poll(() => w.api.statuses(PROJECT).map((s) => [s.sha, s.name, s.status]), { timeout: 30_000 }).toEqual([[head, 'hookpilot/mr-review', 'running']])
  expect(ownNotes(w)).toEqual([])
  await rm(join(w.dir, `${head}.hold`))
  await expect.poll(async () => (await jobs(w)).map((j) => j.state), { timeout: 30_000 }).toEqual(['done'])
  expect(w.api.statuses(PROJECT).map((s) => [s.sha, s.history])).toEqual([[head, ['running', 'failed']]])

  // A push whose agent has no answer: it exits 1, tried once (agent.retry.attempts: 1), and the job fails.
  const broken = sha('gitlab-running-fails')
  w.api.push(PROJECT, 1, broken, DIFFS)
  const body = JSON.stringify(mergeRequestHook('update', { project: PROJECT, iid: 1, head: broken }))
  expect((await fetch(`http://127.0.0.1:${port}/webhooks/mr-review`, { method: 'POST', headers: gitlabHeaders(SECRET, 'uuid-fails'), body })).status).toBe(202)
  await expect.poll(async () => (await jobs(w)).map((j) => j.state).sort(), { timeout: 30_000 }).toEqual(['done', 'failed'])
  const status = w.api.statuses(PROJECT).find((s) => s.sha === broken)
  expect([status?.history, status?.description?.startsWith('Not reviewed: the review failed')]).toEqual([['running', 'failed'], true])
}, 120_000)
