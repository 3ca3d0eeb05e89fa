/**
 * CPU per accepted event without sockets: hookpilot (pipeline, state backend, worker pool, default logger) as
 * bench/gateway.js builds it, driven through `gateway.handle()` by `connections` loops that each send one
 * request per turn of the event loop (as keep-alive connections do), for `seconds`. Steadier than req/s over
 * loopback on a busy machine; meant for comparing changes and for `--cpu-prof`.
 *
 *   node bench/handle-cost.js <sqlite|sqlite-full|sqlite-groups|memory|redis|postgres|floor|sqlite-floor|postgres-floor> [seconds=5] [connections=32] [busy|echo] > /dev/null
 *
 * With the busy agent it measures the acknowledgement alone; with echo, CPU runs until the queue is drained,
 * so the figure is each event's whole life (202, lease, agent, answer stored, delivery, done): the difference
 * is what the pool costs per job. `floor` runs the floor server's checks (HMAC, strict UTF-8, JSON.parse, a
 * Set) as a function; `sqlite-floor` the durable floor's (bench/floors/sqlite-durable.js: the same, then the raw
 * body and its key committed to SQLite, one transaction per turn). `redis` starts a redis-server of its own (bench/redis.js) and also reports that server's
 * CPU per event. `postgres` and `postgres-floor` (bench/floors/postgres-durable.js: the floor's checks, then the raw
 * body and its key in one INSERT … ON CONFLICT DO NOTHING per turn) start a PostgreSQL of their own (bench/postgres.js)
 * and also report that server's CPU and the statements sent (each a round trip) per event. `sqlite-groups` is sqlite with the route's concurrency groups on (gateway.js benchConcurrency,
 * BENCH_DEBOUNCE), fed the events of 50 pull requests in turn, as is `sqlite` when BENCH_PRS=1 (the run without
 * groups to compare it with). stdout carries the gateway's log; the result is one JSON line on stderr.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { durableFloor } from './floors/sqlite-durable.js'
import { benchConcurrency, benchConfig, benchPlugins } from './gateway.js'
import { ROUTE, SECRET, benchPayload, prPayloads } from './payload.js'
import { killAll } from './procs.js'
import { startRedis } from './redis.js'
import { startPostgres } from './postgres.js'
import { postgresDurableFloor } from './floors/postgres-durable.js'
import pg from 'pg'

const [kind = 'sqlite', secondsArg = '5', connectionsArg = '32', agent = 'busy'] = process.argv.slice(2)
const seconds = Number(secondsArg)
const connections = Number(connectionsArg)
const payload = benchPayload()
const prefix = Math.random().toString(16).slice(2, 10)
const groups = kind === 'sqlite-groups'
// With a debounce the echo run would wait for jobs that are not due yet: its drain would never end.
if (groups && agent === 'echo' && Number(process.env.BENCH_DEBOUNCE || 0) > 0) throw new Error('sqlite-groups with the echo agent needs BENCH_DEBOUNCE=0')
// The events of 50 pull requests in turn (the groups' load), or the one event.
const bodies = groups || process.env.BENCH_PRS === '1' ? prPayloads() : [payload]
let counter = 0
const request = () => {
  const { body, signature } = bodies[counter % bodies.length]
  return {
    method: 'POST',
    path: `/webhooks/${ROUTE}`,
    headers: {
      'content-type': 'application/json',
      'x-github-event': payload.event,
      'x-github-delivery': `${prefix}-0000-4000-8000-${(counter++).toString(16).padStart(12, '0')}`,
      'x-hub-signature-256': signature,
    },
    body,
  }
}

function floorHandler() {
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  const seen = new Set()
  return async (req) => {
    const header = req.headers['x-hub-signature-256']
    const presented = /^sha256=[0-9a-f]{64}$/.test(header) ? Buffer.from(header.slice(7), 'hex') : undefined
    const digest = createHmac('sha256', SECRET).update(req.body).digest()
    if (!presented || !timingSafeEqual(digest, presented)) return { status: 401 }
    const body = JSON.parse(utf8.decode(req.body))
    if (typeof body !== 'object' || body === null) return { status: 400 }
    const id = req.headers['x-github-delivery']
    if (seen.has(id)) return { status: 200 }
    seen.add(id)
    return { status: 202, body: JSON.stringify({ status: 'accepted', route: ROUTE, event: req.headers['x-github-event'], delivery_id: id }) }
  }
}

/** The durable floor on a file in `dir`, through the handler shape of {@link floorHandler}. */
function durableFloorHandler(dir) {
  const floor = durableFloor(join(dir, 'floor.db'))
  return { handle: (req) => floor.handle(req, req.body).then((answer) => ({ status: answer.status })) }
}

/** The `state:` section for `kind`, and the backend it builds, built here too so the run can wait for its queue to drain. */
async function stateFor(dir, redis, limits) {
  if (kind === 'postgres') {
    const { postgresStores } = await import('../dist/plugins/state/postgres/postgres-state.js')
    const options = { url: postgres.url, schema: 'bench' }
    return { state: { driver: 'postgres', ...options }, plugin: { name: 'postgres', ...postgresStores({ ...options, ...limits }) } }
  }
  if (kind === 'memory') {
    const { memoryState } = await import('../dist/plugins/state/memory/memory-state.js')
    return { state: { driver: 'memory' }, plugin: { name: 'memory', state: memoryState(limits) } }
  }
  if (kind === 'redis') {
    const { redisState } = await import('../dist/plugins/state/redis/redis-state.js')
    const options = { url: redis.url, prefix: 'bench' }
    return { state: { driver: 'redis', ...options }, plugin: { name: 'redis', ...redisState({ ...options, ...limits }) } }
  }
  if (kind !== 'sqlite' && kind !== 'sqlite-full' && !groups) throw new Error(`unknown kind "${kind}" (sqlite, sqlite-full, sqlite-groups, memory, redis, floor)`)
  const { sqliteState } = await import('../dist/plugins/state/sqlite/sqlite-state.js')
  const options = { path: join(dir, 'state.db'), sync: kind === 'sqlite-full' ? 'full' : 'normal' }
  return { state: { driver: 'sqlite', ...options }, plugin: { name: 'sqlite', state: sqliteState({ ...options, ...limits }) } }
}

async function gatewayHandler(dir, redis) {
  const { createGateway, definePlugin, parseConfig } = await import('../dist/index.js')
  const limits = (config) => ({ concurrency: config.agent.concurrency, maxQueue: config.agent.max_queue })
  const { state, plugin } = await stateFor(dir, redis, limits(parseConfig(benchConfig({ driver: 'memory' }, agent))))
  const concurrency = groups ? benchConcurrency(Number(process.env.BENCH_DEBOUNCE || 0)) : undefined
  // Jobs that ended, counted from the gateway's events: waiting for the queue to drain by reading the backend's
  // counts every millisecond cost more CPU than the jobs themselves once the table held thousands of them.
  const ended = { name: 'bench-ended', observe: (events) => events.on('jobFinished', () => finished++) }
  const asPlugin = (p) => definePlugin({ name: p.name, setup: () => p })
  const gateway = await createGateway(benchConfig(state, agent, concurrency), [...(await benchPlugins()), asPlugin(plugin), asPlugin(ended)])
  return { handle: (req) => gateway.handle(req), gateway, backend: plugin.state }
}

/** Jobs the gateway finished so far (observed), and events it accepted (202). */
let finished = 0
let acceptedSoFar = 0

/** Resolves once every accepted event's job has ended. */
async function drained() {
  while (finished < acceptedSoFar) await new Promise((resolve) => setTimeout(resolve, 1))
}

const dir = mkdtempSync(join(os.tmpdir(), 'hookpilot-handle-'))
let redis
let postgres
/** Statements sent to PostgreSQL by this process (each one round trip), counted by wrapping `pg`'s client. */
let statements = 0
const query = pg.Client.prototype.query
pg.Client.prototype.query = function (...args) {
  statements++
  return query.apply(this, args)
}
try {
  if (kind === 'redis') redis = await startRedis(join(dir, 'redis'))
  if (kind === 'postgres' || kind === 'postgres-floor') postgres = await startPostgres()
  const pgFloor = kind === 'postgres-floor' ? await postgresDurableFloor(postgres.url) : undefined
  const { handle, gateway, backend } = kind === 'floor' ? { handle: floorHandler() }
    : kind === 'sqlite-floor' ? durableFloorHandler(dir)
    : pgFloor ? { handle: (req) => pgFloor.handle(req, req.body).then((answer) => ({ status: answer.status })) }
    : await gatewayHandler(dir, redis)
  const statuses = {}
  const loop = async (until) => {
    while (performance.now() < until) {
      // One request per loop per turn of the event loop, as a keep-alive connection's next request arrives in
      // a later poll: without it the loops would run in microtasks alone and starve timers and immediates.
      await new Promise((resolve) => setImmediate(resolve))
      const res = await handle(request())
      statuses[res.status] = (statuses[res.status] ?? 0) + 1
      if (res.status === 202) acceptedSoFar++
    }
  }
  const run = (ms) => Promise.all(Array.from({ length: connections }, () => loop(performance.now() + ms)))
  await run(1000) // warm-up
  if (backend && agent === 'echo') await drained()
  for (const k of Object.keys(statuses)) delete statuses[k]
  const cpu0 = process.cpuUsage()
  const redisCpu0 = await redis?.cpuMicros()
  const postgresCpu0 = postgres?.cpuMicros()
  const statements0 = statements
  const t0 = performance.now()
  await run(seconds * 1000)
  const answeredMs = performance.now() - t0
  const backlog = backend ? await backend.jobs.counts() : undefined
  if (backend && agent === 'echo') await drained()
  const cpu = process.cpuUsage(cpu0)
  const redisCpu = redis ? (await redis.cpuMicros()) - redisCpu0 : undefined
  const postgresCpu = postgres ? postgres.cpuMicros() - postgresCpu0 : undefined
  const sent = statements - statements0
  const accepted = statuses[202] ?? 0
  process.stderr.write(JSON.stringify({
    kind, agent, connections, seconds, accepted, statuses, acceptedPerSecond: Math.round(accepted / (answeredMs / 1000)),
    cpuMicrosPerEvent: Number(((cpu.user + cpu.system) / accepted).toFixed(1)), queuedAtEnd: backlog?.queued,
    drainMs: agent === 'echo' ? Math.round(performance.now() - t0 - answeredMs) : undefined,
    redisCpuMicrosPerEvent: redis ? Number((redisCpu / accepted).toFixed(1)) : undefined,
    postgresCpuMicrosPerEvent: postgres ? Number((postgresCpu / accepted).toFixed(1)) : undefined,
    postgresStatementsPerEvent: postgres ? Number((sent / accepted).toFixed(2)) : undefined,
  }) + '\n')
  await gateway?.close()
  await pgFloor?.close()
} finally {
  await redis?.stop()
  await postgres?.stop()
  killAll('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
}
