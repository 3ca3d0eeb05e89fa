/**
 * One server under load, in a process of its own (started by run.js with an IPC channel):
 *
 *   node bench/server.js bare                   a bare node:http server: reads the whole body, answers 202
 *   node bench/server.js floor                  the least any correct gateway does for these requests, hand-written
 *                                               on node:http: HMAC check (401), strict UTF-8 + JSON.parse,
 *                                               de-duplication in a Set (200), else 202. Stores nothing.
 *   node bench/server.js octokit                @octokit/webhooks' createNodeMiddleware on node:http: what a Node
 *                                               user would pick (verify + parse, no handler; answers 200). Stores
 *                                               nothing and de-duplicates nothing; its default logger is on.
 *   node bench/server.js sqlite-floor <file>     the durable floor (SQLite): the floor's work, then the raw body and its
 *                                               key written with better-sqlite3, one transaction per event-loop turn,
 *                                               the 202s after the commit (floors/sqlite-durable.js)
 *   node bench/server.js sqlite <file> [full]   hookpilot with `state: { driver: sqlite, path: <file>, sync }`
 *   node bench/server.js sqlite-groups <file>   the same (sync normal), its route with `concurrency` on: one group per
 *                                               pull request (gateway.js benchConcurrency, BENCH_DEBOUNCE seconds)
 *   node bench/server.js memory                 hookpilot with `state: { driver: memory }`
 *   node bench/server.js redis-durable <url> <prefix>  the durable floor on Redis (floors/redis-durable.js)
 *   node bench/server.js redis <url> <prefix>   hookpilot with `state: { driver: redis, url, prefix }` (run.js starts
 *                                               its own redis-server; two of these on one prefix are redis-2)
 *   node bench/server.js postgres-floor <url>   the durable floor on PostgreSQL (floors/postgres-durable.js)
 *   node bench/server.js postgres <url>         hookpilot with `state: { driver: postgres, url, schema: bench }` (run.js
 *                                               starts its own PostgreSQL)
 *
 * Every hookpilot runs with its default logger (stdout; run.js sends it to /dev/null, as a deployment sends it
 * to a file or a collector), a no-op delivery target and the agent BENCH_AGENT names (see gateway.js: by
 * default a busy one, so that accepted events wait in the queue as they do in a burst).
 *
 * It reports `{ type: 'ready', port }`, answers `{ type: 'usage' }` with its CPU time and heap, exits on
 * `{ type: 'stop' }` (closing a gateway first, so its last commit lands and --cpu-prof writes its profile),
 * and exits by itself when the parent goes away.
 */
import { createServer } from 'node:http'
import { benchConcurrency, benchConfig, benchPlugins } from './gateway.js'
import { asHandler, floorWork, reply } from './floors/floor-work.js'
import { postgresDurableFloor } from './floors/postgres-durable.js'
import { redisDurableFloor } from './floors/redis-durable.js'
import { sqliteDurableFloor } from './floors/sqlite-durable.js'
import { sqliteWorkerFloor } from './floors/sqlite-worker.js'
import { ROUTE, SECRET } from './payload.js'

const kind = process.argv[2]

async function startBare() {
  const answer = JSON.stringify({ status: 'accepted' })
  // Reading the body whole is the same work as the gateway's body reader.
  return listen(bodyServer((_req, res) => {
    res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) })
    res.end(answer)
  }))
}

/** A node:http server that reads each request's whole body, then calls `handle(req, res, body)`. */
function bodyServer(handle) {
  return createServer((req, res) => {
    const chunks = []
    let size = 0
    req.on('data', (chunk) => {
      chunks.push(chunk)
      size += chunk.length
    })
    req.on('end', () => handle(req, res, Buffer.concat(chunks, size)))
  })
}

async function listen(server) {
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve))
  return server.address().port
}

async function startFloor() {
  const seen = new Set()
  return listen(bodyServer((req, res, body) => {
    const outcome = floorWork(req, body, seen)
    if (outcome.accept === undefined) return reply(res, outcome.status, outcome.body)
    seen.add(outcome.accept)
    reply(res, 202, { status: 'accepted', route: ROUTE, event: req.headers['x-github-event'], delivery_id: outcome.accept })
  }))
}

/** The state section of the config for `driver` (sqlite needs the file; sync defaults to normal; redis the URL). */
function stateConfig(driver, path, sync) {
  if (driver === 'memory') return { driver: 'memory' }
  if (driver === 'postgres') return { driver: 'postgres', url: path, schema: 'bench' }
  if (driver === 'redis') {
    if (!path || !sync) throw new Error('server.js redis needs the URL and the prefix: node bench/server.js redis <url> <prefix>')
    return { driver: 'redis', url: path, prefix: sync }
  }
  if (!path) throw new Error('server.js sqlite needs the state file: node bench/server.js sqlite <file> [normal|full]')
  return { driver: 'sqlite', path, sync: sync ?? 'normal' }
}

let gateway
/** Redis commands this process sent, by name (redis rows only): what a request costs in round trips. */
const redisCommands = {}

/** Statements this process sent to PostgreSQL (postgres rows only): each one round trip. */
let pgStatements = 0

/** Counts every statement pg sends (BEGIN and COMMIT included). */
async function countPgStatements() {
  const { default: pg } = await import('pg')
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function (...args) {
    pgStatements++
    return query.apply(this, args)
  }
}

/** Counts every command ioredis sends (pipelined ones too: each goes through sendCommand). */
async function countRedisCommands() {
  const { Redis } = await import('ioredis')
  const send = Redis.prototype.sendCommand
  Redis.prototype.sendCommand = function (command, ...rest) {
    const name = command?.name ?? '?'
    redisCommands[name] = (redisCommands[name] ?? 0) + 1
    return send.call(this, command, ...rest)
  }
}

async function startGateway(state, concurrency) {
  const { createGateway } = await import('../dist/index.js')
  gateway = await createGateway(benchConfig(state, process.env.BENCH_AGENT || undefined, concurrency), await benchPlugins())
  const address = await gateway.listen({ host: '127.0.0.1', port: 0 })
  return address.port
}

async function startOctokit() {
  const { Webhooks, createNodeMiddleware } = await import('@octokit/webhooks')
  const webhooks = new Webhooks({ secret: SECRET })
  // No handler: octokit verifies the signature, parses the JSON and answers 200 "ok". The default log is on.
  return listen(createServer(createNodeMiddleware(webhooks, { path: `/webhooks/${ROUTE}` })))
}

async function stop() {
  // A bounded close: the gateway's own grace period could outlast run.js's patience with a deep queue.
  const timer = setTimeout(() => process.exit(0), 2_000)
  try {
    await gateway?.close()
  } finally {
    clearTimeout(timer)
    process.exit(0)
  }
}

process.on('disconnect', () => process.exit(0))
process.on('message', (message) => {
  if (message?.type === 'usage') {
    const cpu = process.cpuUsage()
    process.send({
      type: 'usage', id: message.id, cpuMicros: cpu.user + cpu.system, heapUsed: process.memoryUsage().heapUsed,
      redisCommands: kind === 'redis' || kind === 'redis-durable' ? { ...redisCommands } : undefined,
      pgStatements: kind === 'postgres' || kind === 'postgres-floor' ? pgStatements : undefined,
    })
  } else if (message?.type === 'stop') {
    void stop()
  }
})

try {
  let port
  if (kind === 'bare') port = await startBare()
  else if (kind === 'floor') port = await startFloor()
  else if (kind === 'octokit') port = await startOctokit()
  else if (kind === 'sqlite-floor') port = await listen(bodyServer(sqliteDurableFloor(process.argv[3])))
  else if (kind === 'sqlite-floor-worker') port = await listen(bodyServer(sqliteWorkerFloor(process.argv[3])))
  else if (kind === 'sqlite' || kind === 'memory') port = await startGateway(stateConfig(kind, process.argv[3], process.argv[4]))
  else if (kind === 'sqlite-groups') {
    port = await startGateway(stateConfig('sqlite', process.argv[3], 'normal'), benchConcurrency(Number(process.env.BENCH_DEBOUNCE || 0)))
  } else if (kind === 'redis-durable') {
    await countRedisCommands()
    port = await listen(bodyServer(await redisDurableFloor(process.argv[3], process.argv[4])))
  } else if (kind === 'postgres-floor') {
    await countPgStatements()
    const floor = await postgresDurableFloor(process.argv[3])
    port = await listen(bodyServer(asHandler(floor.handle)))
  } else if (kind === 'postgres') {
    await countPgStatements()
    port = await startGateway(stateConfig(kind, process.argv[3]))
  } else if (kind === 'redis') {
    await countRedisCommands()
    port = await startGateway(stateConfig(kind, process.argv[3], process.argv[4]))
  } else throw new Error(`unknown server kind "${kind}" (bare, floor, sqlite-floor, sqlite-floor-worker, octokit, sqlite, sqlite-groups, memory, redis, redis-durable, postgres-floor, postgres)`)
  process.send({ type: 'ready', port })
} catch (err) {
  process.send({ type: 'failed', reason: err instanceof Error ? err.stack ?? err.message : String(err) })
  process.exitCode = 1
  process.disconnect()
}
