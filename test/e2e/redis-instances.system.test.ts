/**
 * Issue 9's promises for several `hookpilot serve` processes on one Redis (`state.driver: redis`), each kept by
 * real child processes on a real `redis-server` of this file's own (never the machine's): shared de-dup, a shared
 * rate limit, stalled jobs of a `kill -9`ed instance finished by another, subscriptions made with the CLI live on
 * every instance, Redis killed mid-burst and restarted from its append-only file, an unreachable Redis at
 * startup, and `hookpilot jobs` and `import-subscriptions` against Redis.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, type CliResult, type RunningCli } from '../fixtures/cli.js'
import { crash, durableSetup, redisStateYaml, SECRET, type Answer, type Durable, type DurableOptions, type Serving } from '../fixtures/durable.js'
import { killIfAlive, waitForDeath } from '../fixtures/process.js'
import { useRedis } from '../fixtures/redis.js'
import { freePort } from '../fixtures/ports.js'

const redis = useRedis()

const running: RunningCli[] = []
const agents: number[] = []
afterEach(() => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL')
  for (const pid of agents.splice(0)) killIfAlive(pid)
})

/** A world whose config puts the state in this file's Redis, under a prefix of its own. */
interface RedisWorld extends Durable {
  readonly prefix: string
}

let worlds = 0
async function redisWorld(options: DurableOptions & { lockSeconds?: number } = {}): Promise<RedisWorld> {
  const prefix = `e2e${++worlds}-${randomUUID().slice(0, 8)}`
  const world = await durableSetup({ ...options, state: redisStateYaml(redis.url, prefix, options.lockSeconds ?? 2) })
  return { ...world, prefix }
}

/** Starts `n` instances of `hookpilot serve` on the world's config at once (instance i tags its agents `i`). */
async function serveMany(world: Durable, n: number, env: NodeJS.ProcessEnv = {}): Promise<Serving[]> {
  return Promise.all(Array.from({ length: n }, async (_, i) => serveOne(world, { AGENT_INSTANCE: String(i), ...env })))
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

/**
 * BullMQ's lists of the world's queue, read straight from Redis: what is waiting (a job's fair turn is its
 * priority, so BullMQ keeps it in its prioritized set; one taken over from a dead instance is back on its wait
 * list), running and done.
 */
async function queueState(world: RedisWorld): Promise<{ waiting: number; active: number; completed: number; failed: number }> {
  const key = (name: string) => `${world.prefix}:jobs:${name}`
  const [wait, prioritized, active, completed, failed] = await Promise.all([
    redis.client.llen(key('wait')), redis.client.zcard(key('prioritized')), redis.client.llen(key('active')), redis.client.zcard(key('completed')),
    redis.client.zcard(key('failed')),
  ])
  return { waiting: wait + prioritized, active, completed, failed }
}

/** Waits until every PR in `prs` has a comment. */
async function allPosted(world: Durable, prs: readonly number[], timeout = 30_000): Promise<void> {
  await expect.poll(() => prs.filter((pr) => !world.posted().includes(pr)), { timeout, interval: 100 }).toEqual([])
}

/** Every PR of `prs` was commented on exactly once, and no other PR at all. */
function postedOnceEach(world: Durable, prs: readonly number[]): void {
  const posted = world.posted()
  for (const pr of prs) expect(count(posted, pr), `PR ${pr} posted ${count(posted, pr)} times`).toBe(1)
  expect(posted.filter((pr) => !prs.includes(pr))).toEqual([])
}

const cli = (world: Durable, args: readonly string[]): Promise<CliResult> => runCli([...args, '--config', world.config], { env: world.env, cwd: world.dir })

async function probe(port: number, path: '/health' | '/ready'): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`)
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}


describe('several instances share the de-dup, the rate limit and the queue', () => {
  it('100 concurrent copies of one delivery spread over three instances: one 202, one agent run, one comment', async () => {
    const world = await redisWorld({ agentMs: 200 })
    const servers = await serveMany(world, 3)
    const answers = await Promise.all(range(0, 99).map((i) => world.sendTo(servers[i % 3]!.port, 'pr', SECRET, 42, 'one-delivery')))
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1)
    const duplicates = answers.filter((a) => a.status === 200 && a.body['status'] === 'duplicate')
    expect(duplicates).toHaveLength(99)
    await allPosted(world, [42])
    await expect.poll(() => queueState(world), { timeout: 10_000 }).toMatchObject({ completed: 1, active: 0, waiting: 0 })
    // Once done, a copy on any instance is still a duplicate of the one job ever made.
    for (const { port } of servers) expect(await world.send(port, 42, 'one-delivery')).toMatchObject({ status: 200, body: { status: 'duplicate' } })
    expect(await redis.client.get(`${world.prefix}:seq`)).toBe('1')
    expect(starts(world)).toEqual([42])
    postedOnceEach(world, [42])
  }, 60_000)

  it('a route limited to 5 a minute answers the sixth request 429 with Retry-After, whichever instance gets it; duplicates use none of it', async () => {
    const world = await redisWorld({ agentMs: 50, routeRateLimit: 5 })
    const servers = await serveMany(world, 3)
    const answers: Answer[] = []
    const send = (i: number, at: number) => world.sendTo(servers[at % 3]!.port, 'pr', SECRET, 100 + i, `limited-${i}`)
    // Round robin, one at a time: four new deliveries, copies of three of them on other instances (a duplicate
    // does not use up the limit, though each instance counts a new delivery's hit with its key's hold), then
    // four more new ones: the fifth is still within the limit.
    for (const i of range(0, 3)) answers.push(await send(i, i))
    for (const i of range(0, 2)) answers.push(await send(i, i + 1))
    for (const i of range(4, 7)) answers.push(await send(i, i))
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 200, 200, 200, 202, 429, 429, 429])
    for (const refused of answers.slice(8)) {
      expect(refused.body).toEqual({ error: 'Rate limit exceeded' })
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1)
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60)
    }
    await allPosted(world, range(100, 104))
    await expect.poll(() => queueState(world), { timeout: 10_000 }).toMatchObject({ completed: 5, active: 0, waiting: 0 })
    expect(starts(world).sort((a, b) => a - b)).toEqual(range(100, 104))
    postedOnceEach(world, range(100, 104))
  }, 60_000)

  it('kill -9 of an instance with jobs running and queued: another instance finishes all of them, each delivered once', async () => {
    const world = await redisWorld({ concurrency: 2, lockSeconds: 2 })
    // A's agents would run a minute: only its death ends them. B's take long enough that jobs are still
    // queued once A has leased its two.
    const [a, b] = await Promise.all([
      serveOne(world, { AGENT_INSTANCE: 'a', AGENT_MS: '60000' }),
      serveOne(world, { AGENT_INSTANCE: 'b', AGENT_MS: '400' }),
    ])
    const prs = range(1, 12)
    const answers = await Promise.all(prs.map((pr, i) => world.send((i % 2 ? a : b)!.port, pr, `stalled-${pr}`)))
    expect(answers.map((r) => r.status)).toEqual(prs.map(() => 202))
    await expect.poll(() => starts(world, 'a').length, { timeout: 15_000 }).toBe(2)
    const onA = starts(world, 'a')
    const pids = world.agentLog().filter((e) => e.instance === 'a').map((e) => e.pid)
    agents.push(...pids)
    expect((await queueState(world)).waiting).toBeGreaterThan(0) // still queued when A dies
    await crash(a!)
    for (const pid of pids) expect(await waitForDeath(pid, 5_000)).toBe(true)
    // A's two jobs come back once their lock lapses (lock_seconds 2) and B's stalled-job check finds them.
    await allPosted(world, prs, 40_000)
    await expect.poll(() => queueState(world), { timeout: 15_000 }).toMatchObject({ completed: 12, active: 0, waiting: 0, failed: 0 })
    postedOnceEach(world, prs)
    for (const pr of onA) expect(starts(world, 'b')).toContain(pr)
    expect(b!.cli.child.exitCode).toBe(null)
    // B says whose jobs it took over, and how many (issue 25, item 8): A's two, by its pid and lease.
    const took = new RegExp(`took over (\\d+) running jobs? from \\S+ pid ${a!.cli.child.pid} \\(leases? [^)]+\\)`, 'g')
    await expect.poll(() => [...b!.cli.output().matchAll(took)].reduce((n, m) => n + Number(m[1]), 0)).toBe(2)
  }, 60_000)

  it('hookpilot jobs list, show and retry work against Redis while the instances run', async () => {
    const world = await redisWorld({ agentMs: 50 })
    world.gh.setMode('repo-not-found')
    const [a, b] = await serveMany(world, 2)
    expect((await world.send(a!.port, 31, 'jobs-31')).status).toBe(202)
    expect((await world.send(b!.port, 32, 'jobs-32')).status).toBe(202)
    await expect.poll(async () => (await queueState(world)).failed, { timeout: 20_000 }).toBe(2)

    const listed = await cli(world, ['jobs', 'list', '--json'])
    expect(listed.code, listed.output).toBe(0)
    const jobs = JSON.parse(listed.stdout) as Array<{ id: string; deliveryId: string; state: string; lastError?: string }>
    expect(jobs.map((j) => j.deliveryId).sort()).toEqual(['jobs-31', 'jobs-32'])
    for (const job of jobs) expect(job).toMatchObject({ state: 'failed', lastError: expect.stringContaining('octo/repo') })
    const job31 = jobs.find((j) => j.deliveryId === 'jobs-31')!

    const shown = await cli(world, ['jobs', 'show', job31.id])
    expect(shown.code, shown.output).toBe(0)
    expect(shown.stdout).toMatch(/state:\s+failed/)
    expect(shown.stdout).toContain('jobs-31')

    world.gh.setMode('ok')
    const retried = await cli(world, ['jobs', 'retry', job31.id])
    expect(retried).toMatchObject({ code: 0, stdout: expect.stringContaining('delivering its stored answer again') })
    await allPosted(world, [31], 15_000)
    await expect.poll(() => queueState(world), { timeout: 10_000 }).toMatchObject({ completed: 1, failed: 1 })
    const done = await cli(world, ['jobs', 'show', job31.id])
    expect(done.stdout).toMatch(/state:\s+done/)
    expect(done.stdout).toContain('answer:\n  answer: review 31')
    const failed = await cli(world, ['jobs', 'list', '--state', 'failed', '--json'])
    expect((JSON.parse(failed.stdout) as Array<{ deliveryId: string }>).map((j) => j.deliveryId)).toEqual(['jobs-32'])
    expect(starts(world).sort((x, y) => x - y)).toEqual([31, 32]) // the retry delivered the stored answer: no new run
    postedOnceEach(world, [31])
  }, 60_000)
})

describe('subscriptions in Redis', () => {
  const subscribeArgs = (name: string, secret: string) => [
    'subscribe', name, '--secret', secret, '--events', 'pull_request', '--prompt', 'review {number}',
    '--deliver', 'github_comment', '--deliver-extra', 'repo=octo/repo', '--deliver-extra', 'pr_number={number}',
  ]
  /** The dynamic routes `hookpilot list --json` shows, and its whole output. */
  const listed = async (world: Durable) => {
    const result = await cli(world, ['list', '--json'])
    expect(result.code, result.output).toBe(0)
    const names = (JSON.parse(result.stdout) as Array<{ name: string; source: string }>).filter((r) => r.source === 'dynamic').map((r) => r.name)
    return { names, output: result.output }
  }
  const dynamicNames = async (world: Durable) => (await listed(world)).names

  it('a subscription made with the CLI is live on every instance within seconds; list shows it; remove removes it everywhere', async () => {
    const world = await redisWorld({ agentMs: 50 })
    const servers = await serveMany(world, 3)
    const secret = `sub-${randomUUID()}`
    for (const { port } of servers) expect((await world.sendTo(port, 'reviews', secret, 200, 'before')).status).toBe(404)

    const made = await cli(world, subscribeArgs('reviews', secret))
    expect(made.code, made.output).toBe(0)
    expect(existsSync(join(world.dir, '.subscriptions.json'))).toBe(false) // in Redis, not in a file
    expect(await redis.client.get(`${world.prefix}:subscriptions`)).toContain('"reviews"')
    // Announced on the change channel: each instance serves it without a restart (and without polling).
    for (const [i, { port }] of servers.entries()) {
      await expect.poll(async () => (await world.sendTo(port, 'reviews', secret, 200 + i, `sub-${i}`)).status, { timeout: 5_000, interval: 50 }).toBe(202)
    }
    const shown = await listed(world)
    expect(shown.names).toEqual(['reviews'])
    expect(shown.output).not.toContain(secret)
    await allPosted(world, [200, 201, 202])

    const removed = await cli(world, ['remove', 'reviews'])
    expect(removed.code, removed.output).toBe(0)
    for (const [i, { port }] of servers.entries()) {
      await expect.poll(async () => (await world.sendTo(port, 'reviews', secret, 210 + i, `gone-${i}`)).status, { timeout: 5_000, interval: 50 }).toBe(404)
    }
    expect(await dynamicNames(world)).toEqual([])
    postedOnceEach(world, [200, 201, 202])
  }, 60_000)

  it('hookpilot import-subscriptions copies a file\'s subscriptions into Redis, where the instances serve them', async () => {
    // The file a single sqlite instance's `hookpilot subscribe` wrote: the move from one instance to several.
    const single = await durableSetup()
    const secrets = { alpha: `alpha-${randomUUID()}`, beta: `beta-${randomUUID()}` }
    const world = await redisWorld({ agentMs: 50 })
    const [made, [a, b]] = await Promise.all([
      Promise.all(Object.entries(secrets).map(([name, secret]) => cli(single, subscribeArgs(name, secret)))),
      serveMany(world, 2),
    ])
    for (const result of made) expect(result.code, result.output).toBe(0)
    // And a market watch beside them, moved with them.
    const watch = await cli(single, ['subscribe', '--market', 'fed-decision', '--when', 'resolved'])
    expect(watch.code, watch.output).toBe(0)
    const file = join(single.dir, '.subscriptions.json')
    const before = readFileSync(file, 'utf8')

    expect((await world.sendTo(a!.port, 'alpha', secrets.alpha, 300, 'alpha-early')).status).toBe(404)
    const imported = await cli(world, ['import-subscriptions', '--from', file])
    expect(imported.code, imported.output).toBe(0)
    expect(imported.stdout).toMatch(/Imported 2 subscription\(s\) .*: (alpha, beta|beta, alpha)\./) // the file's order
    expect(imported.stdout).toContain('Imported 1 market watch(es): fed-decision.')
    expect(readFileSync(file, 'utf8')).toBe(before) // the file is read, never changed
    expect(JSON.parse((await redis.client.get(`${world.prefix}:subscriptions`)) ?? '{}')).toMatchObject({ watches: { 'fed-decision': { market: 'fed-decision' } } })
    const names = (await dynamicNames(world)).sort()
    expect(names.slice(0, 2)).toEqual(['alpha', 'beta'])
    expect(names.slice(2)).toEqual([expect.stringContaining('fed-decision')]) // list shows the watch too
    await expect.poll(async () => (await world.sendTo(a!.port, 'alpha', secrets.alpha, 301, 'alpha-1')).status, { timeout: 5_000, interval: 50 }).toBe(202)
    await expect.poll(async () => (await world.sendTo(b!.port, 'beta', secrets.beta, 302, 'beta-1')).status, { timeout: 5_000, interval: 50 }).toBe(202)
    await allPosted(world, [301, 302])

    const again = await cli(world, ['import-subscriptions', '--from', file])
    expect(again.code, again.output).toBe(0)
    expect(again.stdout).toMatch(/Imported 0 subscription\(s\)/)
    expect(again.stdout).toMatch(/Kept the ones already there .*: (alpha, beta|beta, alpha), fed-decision\./)
  }, 60_000)
})

describe('Redis down, restarted, unreachable', () => {
  it('Redis killed mid-burst: 503 with Retry-After, no 202 lost; /health says the store is down; the instances reconnect by themselves', async () => {
    // A lock longer than the outage (well under a second here): a job running while Redis is away keeps its
    // lock and is finished, not run twice. Short all the same: a job a worker leased just as Redis died (the
    // lease stored, its answer lost) is leased by no one until its lock lapses and a stalled-job check, every
    // lock_seconds, sends it back to the queue.
    const world = await redisWorld({ agentMs: 100, concurrency: 2, lockSeconds: 5 })
    const servers = await serveMany(world, 2)
    const answers = new Map<number, Answer>()
    let killed: Promise<void> | undefined
    await Promise.all(range(1, 40).map(async (pr) => {
      const answer = await world.sendTo(servers[pr % 2]!.port, 'pr', SECRET, pr, `burst-${pr}`)
      answers.set(pr, answer)
      if (answers.size === 8) killed = redis.kill()
    }))
    await killed
    // While Redis is down, every webhook is refused with a time to come back, on every instance.
    const during = await Promise.all(range(41, 50).map((pr) => world.sendTo(servers[pr % 2]!.port, 'pr', SECRET, pr, `burst-${pr}`)))
    for (const [i, answer] of during.entries()) answers.set(41 + i, answer)
    for (const [pr, answer] of answers) {
      expect([202, 503], `PR ${pr}`).toContain(answer.status)
      if (answer.status === 503) {
        expect(answer.body).toEqual({ error: 'State store unavailable' })
        expect(Number(answer.retryAfter)).toBeGreaterThan(0)
      }
    }
    expect(during.map((a) => a.status)).toEqual(during.map(() => 503))
    const acked = [...answers].filter(([, a]) => a.status === 202).map(([pr]) => pr).sort((x, y) => x - y)
    expect(acked.length).toBeGreaterThanOrEqual(8)
    for (const { port } of servers) {
      const health = await probe(port, '/health')
      expect(health).toMatchObject({ status: 200, body: { status: 'degraded', reason: expect.stringMatching(/Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable/) } })
      expect((await probe(port, '/ready')).status).toBe(503)
    }

    await redis.restart()
    for (const { port } of servers) await expect.poll(async () => (await probe(port, '/health')).body['status'], { timeout: 15_000 }).toBe('ok')
    await allPosted(world, acked, 40_000)
    // Those refused while Redis was known down never reached it: sent again (as a sender retries), each is
    // accepted now. (One refused mid-burst may find the hold its first try left in Redis, and wait until that
    // lapses, up to 5 s: those are not sent again here.)
    const again = await Promise.all(range(41, 50).map((pr) => world.send(servers[pr % 2]!.port, pr, `burst-${pr}`)))
    expect(again.map((a) => a.status)).toEqual(again.map(() => 202))
    await allPosted(world, range(41, 50), 30_000)
    await expect.poll(() => queueState(world), { timeout: 15_000 }).toMatchObject({ active: 0, waiting: 0, failed: 0 })
    // Every 202 ran once and was delivered once; one refused mid-burst ran at most once (Redis may have stored it
    // just before it died, the answer lost with it), never twice; each job that ran is a PR commented on once.
    const posted = world.posted()
    for (const pr of [...acked, ...range(41, 50)]) {
      expect(count(posted, pr), `PR ${pr} posts`).toBe(1)
      expect(count(starts(world), pr), `PR ${pr} runs`).toBe(1)
    }
    for (const pr of range(1, 40)) expect(count(posted, pr), `PR ${pr} posts`).toBeLessThanOrEqual(1)
    expect((await queueState(world)).completed).toBe(posted.length)
  }, 60_000)

  it('Redis restarted with its append-only file: the jobs it queued while no worker could run them still run', async () => {
    const world = await redisWorld({ concurrency: 1, lockSeconds: 2 })
    // One instance whose only worker slot is taken by a minute-long agent: the rest stay queued in Redis.
    const first = await serveOne(world, { AGENT_INSTANCE: 'a', AGENT_MS: '60000' })
    const prs = range(1, 6)
    const answers = await Promise.all(prs.map((pr) => world.send(first.port, pr, `aof-${pr}`)))
    expect(answers.map((r) => r.status)).toEqual(prs.map(() => 202))
    await expect.poll(() => starts(world).length, { timeout: 15_000 }).toBe(1)
    agents.push(...world.agentLog().map((e) => e.pid))
    expect(await queueState(world)).toMatchObject({ waiting: 5, active: 1 })
    await crash(first) // no instance left to run anything

    await redis.kill()
    await redis.restart()
    expect(await queueState(world)).toMatchObject({ waiting: 5, active: 1 }) // reloaded from the append-only file
    await serveMany(world, 2, { AGENT_MS: '100' })
    await allPosted(world, prs, 40_000)
    await expect.poll(() => queueState(world), { timeout: 15_000 }).toMatchObject({ completed: 6, active: 0, waiting: 0, failed: 0 })
    postedOnceEach(world, prs)
  }, 60_000)

  it('hookpilot serve against an unreachable Redis exits non-zero naming state.url, never printing its password', async () => {
    const port = await freePort()
    const world = await durableSetup({ state: redisStateYaml(`redis://default:hunter2-not-shown@127.0.0.1:${port}`, 'nowhere') })
    const result = await runCli(['serve', '--config', world.config, '--port', '0'], { env: world.env, cwd: world.dir })
    expect(result.code).not.toBe(0)
    expect(result.code).not.toBe(null)
    expect(result.stderr).toContain(`Cannot reach Redis at state.url (redis://default:***@127.0.0.1:${port}`)
    expect(result.stderr).toMatch(/ECONNREFUSED.*Start Redis, or fix state\.url/)
    expect(result.output).not.toContain('hunter2')
    expect(result.output).not.toContain('Listening on')
  }, 30_000)
})
