/**
 * Several `hookpilot serve` processes on one PostgreSQL (`state.driver: postgres`), real child processes on a
 * PostgreSQL this file starts (never the machine's): shared de-dup, a `kill -9`ed instance's jobs finished by
 * another once its lease is found dead, two instances starting at once on a new schema, `hookpilot jobs`
 * against PostgreSQL (the admin open), subscriptions and the rate limit shared, and PostgreSQL killed or frozen.
 */
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { SCHEMA_VERSION } from '../../src/plugins/state/postgres/schema.js'
import { runCli, type CliResult, type RunningCli } from '../fixtures/cli.js'
import { crash, durableSetup, SECRET, type Durable, type DurableOptions, type Serving } from '../fixtures/durable.js'
import { killIfAlive, waitForDeath } from '../fixtures/process.js'
import { usePostgres } from '../fixtures/postgres.js'

const server = usePostgres()

const running: RunningCli[] = []
const agents: number[] = []
afterEach(() => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL')
  for (const pid of agents.splice(0)) killIfAlive(pid)
})

interface PostgresWorld extends Durable {
  readonly schema: string
  readonly url: string
}

let worlds = 0
/** A world whose config puts the state in this file's PostgreSQL, in a schema of its own. */
async function postgresWorld(options: DurableOptions & { leaseSeconds?: number; url?: string } = {}): Promise<PostgresWorld> {
  const schema = `e2e${++worlds}`
  const state = `  driver: postgres\n  url: ${JSON.stringify(options.url ?? server.url)}\n  schema: ${schema}\n  lease_seconds: ${options.leaseSeconds ?? 2}`
  return { ...(await durableSetup({ ...options, state })), schema, url: options.url ?? server.url }
}

async function serveOne(world: Durable, env: NodeJS.ProcessEnv = {}): Promise<Serving> {
  const serving = await world.serve(env)
  running.push(serving.cli)
  return serving
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)
const count = (list: readonly number[], n: number) => list.filter((x) => x === n).length
const prOf = (prompt: string) => Number(prompt.replace(/^review /, ''))
const starts = (world: Durable, instance?: string) =>
  world.agentLog().filter((e) => e.what === 'start' && (instance === undefined || e.instance === instance)).map((e) => prOf(e.prompt))

/** The world's jobs by state, read straight from PostgreSQL. */
async function states(world: PostgresWorld): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: world.url })
  await client.connect()
  try {
    const { rows } = await client.query<{ state: string; n: string }>(`SELECT state, count(*) AS n FROM "${world.schema}".jobs GROUP BY state`)
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]))
  } finally {
    await client.end()
  }
}

async function allPosted(world: Durable, prs: readonly number[], timeout = 30_000): Promise<void> {
  await expect.poll(() => prs.filter((pr) => !world.posted().includes(pr)), { timeout, interval: 100 }).toEqual([])
}

function postedOnceEach(world: Durable, prs: readonly number[]): void {
  const posted = world.posted()
  for (const pr of prs) expect(count(posted, pr), `PR ${pr} posted ${count(posted, pr)} times`).toBe(1)
  expect(posted.filter((pr) => !prs.includes(pr))).toEqual([])
}

const cli = (world: Durable, args: readonly string[]): Promise<CliResult> => runCli([...args, '--config', world.config], { env: world.env, cwd: world.dir })

describe('several instances on one PostgreSQL', () => {
  it('two instances starting at once on a new schema both serve it (each migration applied once); 60 copies of one delivery over both: one 202, one run, one comment', async () => {
    const world = await postgresWorld({ agentMs: 200 })
    const servers = await Promise.all([serveOne(world, { AGENT_INSTANCE: '0' }), serveOne(world, { AGENT_INSTANCE: '1' })])
    const answers = await Promise.all(range(0, 59).map((i) => world.sendTo(servers[i % 2]!.port, 'pr', SECRET, 42, 'one-delivery')))
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 200 && a.body['status'] === 'duplicate')).toHaveLength(59)
    await allPosted(world, [42])
    await expect.poll(() => states(world), { timeout: 10_000 }).toEqual({ done: 1 })
    for (const { port } of servers) expect(await world.send(port, 42, 'one-delivery')).toMatchObject({ status: 200, body: { status: 'duplicate' } })
    expect(starts(world)).toEqual([42])
    postedOnceEach(world, [42])
    const client = new pg.Client({ connectionString: server.url })
    await client.connect()
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM "${world.schema}".migrations ORDER BY version`)
    await client.end()
    expect(rows.map((r) => r.version)).toEqual(range(1, SCHEMA_VERSION))
  }, 60_000)

  it('kill -9 of an instance with jobs running and queued: the other finishes all of them, each delivered once', async () => {
    const world = await postgresWorld({ concurrency: 2, leaseSeconds: 2 })
    const [a, b] = await Promise.all([
      serveOne(world, { AGENT_INSTANCE: 'a', AGENT_MS: '60000' }),
      serveOne(world, { AGENT_INSTANCE: 'b', AGENT_MS: '400' }),
    ])
    const prs = range(1, 10)
    const answers = await Promise.all(prs.map((pr, i) => world.send((i % 2 ? a : b)!.port, pr, `stalled-${pr}`)))
    expect(answers.map((r) => r.status)).toEqual(prs.map(() => 202))
    await expect.poll(() => starts(world, 'a').length, { timeout: 15_000 }).toBe(2)
    const onA = starts(world, 'a')
    const pids = world.agentLog().filter((e) => e.instance === 'a').map((e) => e.pid)
    agents.push(...pids)
    expect((await states(world))['queued']).toBeGreaterThan(0) // still queued when A dies
    await crash(a!)
    // B's recovery finds A's owner dead, kills the agents it left (their process groups) and runs the jobs again.
    for (const pid of pids) expect(await waitForDeath(pid, 10_000)).toBe(true)
    await allPosted(world, prs, 40_000)
    await expect.poll(() => states(world), { timeout: 15_000 }).toEqual({ done: 10 })
    postedOnceEach(world, prs)
    for (const pr of onA) expect(starts(world, 'b')).toContain(pr)
    expect(b!.cli.child.exitCode).toBe(null)
  }, 60_000)

  it('hookpilot jobs list, show and retry work against PostgreSQL while an instance runs', async () => {
    const world = await postgresWorld({ agentMs: 50 })
    world.gh.setMode('repo-not-found')
    const a = await serveOne(world)
    expect((await world.send(a.port, 31, 'jobs-31')).status).toBe(202)
    expect((await world.send(a.port, 32, 'jobs-32')).status).toBe(202)
    await expect.poll(async () => (await states(world))['failed'], { timeout: 20_000 }).toBe(2)

    const listed = await cli(world, ['jobs', 'list', '--json'])
    expect(listed.code, listed.output).toBe(0)
    const jobs = JSON.parse(listed.stdout) as Array<{ id: string; deliveryId: string; state: string; lastError?: string }>
    expect(jobs.map((j) => j.deliveryId).sort()).toEqual(['jobs-31', 'jobs-32'])
    for (const job of jobs) expect(job).toMatchObject({ state: 'failed', lastError: expect.stringContaining('octo/repo') })
    const job31 = jobs.find((j) => j.deliveryId === 'jobs-31')!

    const shown = await cli(world, ['jobs', 'show', job31.id])
    expect(shown.code, shown.output).toBe(0)
    expect(shown.stdout).toMatch(/state:\s+failed/)

    world.gh.setMode('ok')
    const retried = await cli(world, ['jobs', 'retry', job31.id])
    expect(retried).toMatchObject({ code: 0, stdout: expect.stringContaining('delivering its stored answer again') })
    // The retry's NOTIFY (or the poll) wakes the serving instance, which delivers the stored answer.
    await allPosted(world, [31], 15_000)
    await expect.poll(() => states(world), { timeout: 10_000 }).toEqual({ done: 1, failed: 1 })
    expect(starts(world).sort((x, y) => x - y)).toEqual([31, 32])
    postedOnceEach(world, [31])
  }, 60_000)
})

describe('two instances racing', () => {
  it('one group: ten events of it sent at once over both instances are all accepted; one runs, the nine it supersedes never do, and one comment is posted', async () => {
    const world = await postgresWorld({ agentMs: 50, groupKey: '{repository.full_name}' })
    const servers = await Promise.all([serveOne(world), serveOne(world)])
    const prs = range(1, 10)
    const answers = await Promise.all(prs.map((pr, i) => world.send(servers[i % 2]!.port, pr, `group-${pr}`)))
    expect(answers.map((a) => a.body['status'])).toEqual(prs.map(() => 'accepted'))
    // Every job ended: the newest done, the nine it covers superseded, so no further run can come.
    await expect.poll(() => states(world), { timeout: 20_000, interval: 100 }).toEqual({ done: 1, superseded: 9 })
    expect(starts(world)).toHaveLength(1)
    expect(world.posted()).toEqual(starts(world))
  }, 60_000)

  it('max_queue: with both workers busy, 24 deliveries sent at once over both instances get exactly max_queue 202s, the rest 503 Queue full', async () => {
    const world = await postgresWorld({ concurrency: 1, maxQueue: 5, agentMs: 60_000 })
    const servers = await Promise.all([serveOne(world, { AGENT_INSTANCE: 'a' }), serveOne(world, { AGENT_INSTANCE: 'b' })])
    // One job running on each instance (concurrency 1), so nothing leaves the queue during the race.
    for (const [i, { port }] of servers.entries()) expect((await world.send(port, 90 + i, `busy-${i}`)).status).toBe(202)
    await expect.poll(() => new Set(world.agentLog().filter((e) => e.what === 'start').map((e) => e.instance)).size, { timeout: 15_000, interval: 100 }).toBe(2)
    agents.push(...world.agentLog().map((e) => e.pid))
    const answers = await Promise.all(range(1, 24).map((i) => world.sendTo(servers[i % 2]!.port, 'pr', SECRET, 100 + i, `full-${i}`)))
    expect(answers.filter((a) => a.status === 202)).toHaveLength(5)
    const refused = answers.filter((a) => a.status !== 202)
    expect(refused).toHaveLength(19)
    for (const r of refused) expect(r).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) })
    expect(await states(world)).toEqual({ running: 2, queued: 5 })
  }, 60_000)
})

describe('subscriptions and the rate limit in PostgreSQL', () => {
  const subscribeArgs = (name: string, secret: string) => [
    'subscribe', name, '--secret', secret, '--events', 'pull_request', '--prompt', 'review {number}',
    '--deliver', 'github_comment', '--deliver-extra', 'repo=octo/repo', '--deliver-extra', 'pr_number={number}',
  ]

  it('a subscription made with the CLI is live on both instances within seconds, kept in PostgreSQL; remove removes it everywhere', async () => {
    const world = await postgresWorld({ agentMs: 50 })
    const servers = await Promise.all([serveOne(world), serveOne(world)])
    const secret = `sub-${randomUUID()}`
    for (const { port } of servers) expect((await world.sendTo(port, 'reviews', secret, 200, 'before')).status).toBe(404)
    const made = await cli(world, subscribeArgs('reviews', secret))
    expect(made.code, made.output).toBe(0)
    expect(existsSync(join(world.dir, '.subscriptions.json'))).toBe(false) // in PostgreSQL, not in a file
    // Announced by NOTIFY: each instance serves it without a restart (and without polling).
    for (const [i, { port }] of servers.entries()) {
      await expect.poll(async () => (await world.sendTo(port, 'reviews', secret, 200 + i, `sub-${i}`)).status, { timeout: 5_000, interval: 50 }).toBe(202)
    }
    await allPosted(world, [200, 201])
    const removed = await cli(world, ['remove', 'reviews'])
    expect(removed.code, removed.output).toBe(0)
    for (const [i, { port }] of servers.entries()) {
      await expect.poll(async () => (await world.sendTo(port, 'reviews', secret, 210 + i, `gone-${i}`)).status, { timeout: 5_000, interval: 50 }).toBe(404)
    }
    postedOnceEach(world, [200, 201])
  }, 60_000)

  it('hookpilot import-subscriptions copies a single instance\'s file into PostgreSQL, where the instances serve it', async () => {
    const single = await durableSetup()
    const secret = `alpha-${randomUUID()}`
    const made = await cli(single, subscribeArgs('alpha', secret))
    expect(made.code, made.output).toBe(0)
    const world = await postgresWorld({ agentMs: 50 })
    const a = await serveOne(world)
    expect((await world.sendTo(a.port, 'alpha', secret, 300, 'alpha-early')).status).toBe(404)
    const imported = await cli(world, ['import-subscriptions', '--from', join(single.dir, '.subscriptions.json')])
    expect(imported.code, imported.output).toBe(0)
    expect(imported.stdout).toContain('Imported 1 subscription(s)')
    await expect.poll(async () => (await world.sendTo(a.port, 'alpha', secret, 301, 'alpha-1')).status, { timeout: 5_000, interval: 50 }).toBe(202)
    await allPosted(world, [301])
  }, 60_000)

  it('a route limited to 4 a minute answers the fifth request 429, whichever instance gets it', async () => {
    const world = await postgresWorld({ agentMs: 50, routeRateLimit: 4 })
    const [a, b] = await Promise.all([serveOne(world), serveOne(world)])
    const answers = []
    for (const i of range(0, 5)) answers.push(await world.send((i % 2 ? a : b).port, 100 + i, `limited-${i}`))
    expect(answers.map((r) => r.status)).toEqual([202, 202, 202, 202, 429, 429])
    await allPosted(world, range(100, 103))
    postedOnceEach(world, range(100, 103))
  }, 60_000)
})

describe('PostgreSQL down', () => {
  it('killed while webhooks arrive: 503 with Retry-After and /ready says why; once it is back, the refused delivery is accepted and every job runs once', async () => {
    const world = await postgresWorld({ agentMs: 50 })
    const a = await serveOne(world)
    expect((await world.send(a.port, 51, 'outage-51')).status).toBe(202)
    await allPosted(world, [51])
    await server.kill()
    const refused = await world.sendTo(a.port, 'pr', SECRET, 52, 'outage-52')
    expect(refused.status).toBe(503)
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1)
    const ready = await fetch(`http://127.0.0.1:${a.port}/ready`)
    expect(ready.status).toBe(503)
    expect(await ready.text()).toContain('PostgreSQL')
    await server.restart()
    // The sender delivers again (GitHub's redelivery); the pool replaces its dead connections at once.
    await expect.poll(async () => (await world.send(a.port, 52, 'outage-52')).status, { timeout: 15_000, interval: 200 }).toBe(202)
    await allPosted(world, [51, 52])
    await expect.poll(async () => (await fetch(`http://127.0.0.1:${a.port}/ready`)).status, { timeout: 10_000 }).toBe(200)
    await expect.poll(() => states(world), { timeout: 10_000 }).toEqual({ done: 2 })
    postedOnceEach(world, [51, 52])
  }, 60_000)
})

describe('PostgreSQL stopped for 30 s', () => {
  it('stopped while a burst is being stored and for 30 s after: each webhook answered 202 or 503 with Retry-After, /ready says why all along; once it is back, every acknowledged delivery runs once and the refused ones are accepted when sent again', async () => {
    const world = await postgresWorld({ agentMs: 50 })
    const a = await serveOne(world)
    expect((await world.send(a.port, 81, 'stop-81')).status).toBe(202)
    await allPosted(world, [81])
    // Its end recorded too: a try whose answer was posted but not yet recorded when the store stops is posted again
    // after its lease (at least once), which is not what this test is about.
    await expect.poll(() => states(world), { timeout: 10_000 }).toEqual({ done: 1 })
    // A burst in flight when PostgreSQL stops: some of its batches may commit, the rest must answer 503.
    const burst = range(82, 101).map((pr) => world.sendTo(a.port, 'pr', SECRET, pr, `stop-${pr}`).then((r) => ({ pr, ...r })))
    await server.kill()
    const answers = await Promise.all(burst)
    // Webhooks keep arriving, one a second, while PostgreSQL stays down.
    const stopped = Date.now()
    for (let pr = 102; Date.now() - stopped < 30_000; pr++) {
      const r = await world.sendTo(a.port, 'pr', SECRET, pr, `stop-${pr}`)
      answers.push({ pr, ...r })
      expect(r.status).toBe(503)
      const ready = await fetch(`http://127.0.0.1:${a.port}/ready`)
      expect(`${ready.status} ${await ready.text()}`).toMatch(/^503 .*PostgreSQL/)
      await new Promise((resolve) => setTimeout(resolve, 1_000))
    }
    for (const r of answers) {
      expect([202, 503]).toContain(r.status)
      if (r.status === 503) expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1)
    }
    await server.restart()
    // What was acknowledged runs by itself; the refused deliveries are sent again (GitHub's redelivery).
    for (const r of answers.filter((x) => x.status !== 202)) {
      await expect.poll(async () => (await world.send(a.port, r.pr, `stop-${r.pr}`)).status, { timeout: 15_000, interval: 200 }).toBe(202)
    }
    const all = [81, ...answers.map((r) => r.pr)]
    await allPosted(world, all, 60_000)
    await expect.poll(async () => (await fetch(`http://127.0.0.1:${a.port}/ready`)).status, { timeout: 10_000 }).toBe(200)
    await expect.poll(() => states(world), { timeout: 20_000 }).toEqual({ done: all.length })
    postedOnceEach(world, all)
  }, 150_000)
})

describe('PostgreSQL frozen', () => {
  it('frozen (connections open, nothing answers): 503 within GitHub\'s 10 s, never a late 202; once it thaws, the redelivery is accepted and runs once', async () => {
    // Leases far longer than the freeze: a freeze past a lease is a partition, whose lost try runs again.
    const world = await postgresWorld({ agentMs: 50, leaseSeconds: 60 })
    const a = await serveOne(world)
    expect((await world.send(a.port, 61, 'frozen-61')).status).toBe(202)
    await allPosted(world, [61])
    await expect.poll(() => states(world), { timeout: 10_000 }).toEqual({ done: 1 })
    server.freeze()
    let answered: Awaited<ReturnType<Durable['sendTo']>>
    const began = Date.now()
    try {
      answered = await world.sendTo(a.port, 'pr', SECRET, 62, 'frozen-62')
    } finally {
      server.thaw()
    }
    expect(answered.status).toBe(503)
    expect(Date.now() - began).toBeLessThan(10_000)
    await expect.poll(async () => (await world.send(a.port, 62, 'frozen-62')).status, { timeout: 15_000, interval: 200 }).toBe(202)
    await allPosted(world, [61, 62])
    await expect.poll(() => states(world), { timeout: 10_000 }).toEqual({ done: 2 })
    postedOnceEach(world, [61, 62])
  }, 60_000)
})

describe('PostgreSQL read-only (a failover to a replica, a database made read-only)', () => {
  it('refuses writes: 503 with Retry-After and /ready says it is read-only; writable again, the redelivery is accepted and runs once', async () => {
    const url = await server.database()
    const world = await postgresWorld({ agentMs: 50, url })
    const a = await serveOne(world)
    expect((await world.send(a.port, 71, 'ro-71')).status).toBe(202)
    await allPosted(world, [71])
    const admin = new pg.Client({ connectionString: server.url })
    await admin.connect()
    const database = new URL(url).pathname.slice(1)
    /** Sets the database read-only or not, and ends its connections (as a failover does): the pool reconnects. */
    const readOnly = async (on: boolean) => {
      await admin.query(`ALTER DATABASE ${database} SET default_transaction_read_only = ${on ? 'on' : 'off'}`)
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'hookpilot'", [database])
    }
    try {
      await readOnly(true)
      await expect.poll(async () => (await world.sendTo(a.port, 'pr', SECRET, 72, 'ro-72')).status, { timeout: 10_000, interval: 100 }).toBe(503)
      const refused = await world.sendTo(a.port, 'pr', SECRET, 72, 'ro-72')
      expect(refused.status).toBe(503)
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1)
      await expect.poll(async () => {
        const ready = await fetch(`http://127.0.0.1:${a.port}/ready`)
        return `${ready.status} ${await ready.text()}`
      }, { timeout: 10_000, interval: 100 }).toMatch(/^503 .*read-only/)
      await readOnly(false)
      await expect.poll(async () => (await world.send(a.port, 72, 'ro-72')).status, { timeout: 10_000, interval: 100 }).toBe(202)
      await allPosted(world, [71, 72])
      await expect.poll(() => states(world), { timeout: 10_000 }).toEqual({ done: 2 })
      postedOnceEach(world, [71, 72])
    } finally {
      await admin.end()
    }
  }, 60_000)
})
