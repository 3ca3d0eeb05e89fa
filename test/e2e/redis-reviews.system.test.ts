/**
 * Issue 19 on several instances: two `hookpilot serve` processes on one real `redis-server` (this file's own)
 * receive the pushes of one pull request alternately, and the pull request gets one review, of its newest
 * head, in one sticky comment posted through the real `gh` against a local fake GitHub API; a redelivery of
 * every event afterwards posts nothing.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { startCli, type RunningCli } from '../fixtures/cli.js'
import { startFakeGithub, type FakeGithub } from '../../src/dev/github/server.js'
import { githubExample, githubHeaders } from '../fixtures/github.js'
import { fixtureAgent } from '../fixtures/process.js'
import { startRedis, type TestRedis } from '../fixtures/redis.js'

const SECRET = 'redis-reviews-secret-0123456789'
const REPO = 'octo/repo'
const PR = 7

let redis: TestRedis
let api: FakeGithub
let dir = ''
beforeAll(async () => {
  redis = await startRedis()
  api = await startFakeGithub()
  dir = mkdtempSync(join(tmpdir(), 'hookpilot-redis-reviews-'))
}, 30_000)
afterAll(async () => {
  await redis?.stop()
  await api?.close()
  rmSync(dir, { recursive: true, force: true })
})

const running: RunningCli[] = []
afterEach(() => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL')
})

/** The config of the instances: the review route with a concurrency group, and sticky comments through gh. */
function writeConfig(prefix: string): string {
  const config = join(dir, `${prefix}.yaml`)
  writeFileSync(config, `agent:
  runner: command
  command: ${JSON.stringify(fixtureAgent('slow-review'))}
  sandbox: off
  timeout_seconds: 60
state:
  driver: redis
  url: ${JSON.stringify(redis.url)}
  prefix: ${prefix}
  lock_seconds: 2
platforms:
  github:
    mode: sticky
  webhook:
    extra:
      host: 127.0.0.1
      port: 0
      rate_limit: 100000
      routes:
        review:
          secret: ${SECRET}
          events: [pull_request]
          prompt: "review {number} at {pull_request.head.sha}"
          deliver: github_comment
          deliver_extra: { repo: "{repository.full_name}", pr_number: "{number}" }
          concurrency:
            key: "{repository.full_name}#{pull_request.number}"
            debounce_seconds: 1
            max_wait_seconds: 60
            cancel_in_progress: true
`)
  return config
}

/** A `synchronize` of the pull request at `head`, as GitHub sends it. */
function push(head: string): Buffer {
  const base = githubExample('pull_request', 'opened') as Record<string, Record<string, unknown>>
  const payload = {
    ...base, action: 'synchronize', number: PR,
    repository: { ...base['repository'], full_name: REPO },
    pull_request: { ...base['pull_request'], number: PR, head: { ...(base['pull_request']?.['head'] as object), sha: head } },
  }
  return Buffer.from(JSON.stringify(payload))
}

async function send(port: number, body: Buffer, id: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/webhooks/review`, { method: 'POST', headers: githubHeaders('pull_request', body, SECRET, id), body })
  return ((await res.json()) as { status: string }).status
}

it('two instances receiving one pull request\'s pushes alternately post one review, of the newest head; redeliveries post nothing', async () => {
  const prefix = `rv-${randomUUID().slice(0, 8)}`
  const agentLog = join(dir, `${prefix}-agent.jsonl`)
  const config = writeConfig(prefix)
  api.setHead(REPO, PR, 'h0')
  const env = api.env({ ...process.env, AGENT_LOG: agentLog, AGENT_MS: '300' })
  const ports: number[] = []
  for (const instance of ['0', '1']) {
    const cli = startCli(['serve', '--config', config, '--port', '0'], { env: { ...env, AGENT_INSTANCE: instance }, cwd: dir })
    running.push(cli)
    const [, port] = await cli.waitFor(/Listening on 127\.0\.0\.1:(\d+)/)
    ports.push(Number(port))
  }

  const heads = Array.from({ length: 6 }, (_, i) => `${String(i + 1).repeat(7)}${randomUUID().replace(/-/g, '').slice(0, 33)}`)
  const ids = heads.map(() => randomUUID())
  for (const [i, head] of heads.entries()) {
    api.setHead(REPO, PR, head)
    expect(await send(ports[i % 2] ?? 0, push(head), ids[i] ?? '')).toBe('accepted')
  }
  const last = heads.at(-1) ?? ''
  await expect.poll(() => api.comments(REPO, PR).map((c) => c.body.includes(last.slice(0, 7))), { timeout: 20_000, interval: 100 }).toEqual([true])

  const runs = () => (existsSync(agentLog) ? readFileSync(agentLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { what: string; prompt: string }) : [])
  const started = runs().filter((e) => e.what === 'start')
  expect(started.length, JSON.stringify(started)).toBeLessThanOrEqual(2)
  expect(started.at(-1)?.prompt).toBe(`review ${PR} at ${last}`)
  const [comment] = api.comments(REPO, PR)
  expect(api.writes().filter((w) => w.number === PR && w.kind === 'created')).toHaveLength(1)
  expect(comment?.body).toContain(`answer: review ${PR} at ${last}`)
  expect(comment?.body).toMatch(/covers 6 pushes/)

  // Every event again, to the other instance: each was handled (done, or superseded by a newer one).
  for (const [i, head] of heads.entries()) expect(await send(ports[(i + 1) % 2] ?? 0, push(head), ids[i] ?? '')).toBe('duplicate')
  expect(api.writes().filter((w) => w.number === PR)).toHaveLength(1)
  expect(runs().filter((e) => e.what === 'start')).toHaveLength(started.length)
}, 60_000)
