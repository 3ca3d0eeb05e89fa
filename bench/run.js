/**
 * `npm run bench`: how fast hookpilot acknowledges webhooks, durably, next to what a Node user would otherwise
 * run. Each server runs in its own process, loaded over loopback by autocannon from another process with a real
 * signed ~25 KB pull_request payload:
 *
 *   hookpilot with state.driver sqlite (sync: normal, the default; and sync: full) and memory, its default
 *   logger on (stdout to /dev/null) and its agents busy, as in a burst (bench/gateway.js); hookpilot with
 *   state.driver redis, one instance and two instances on one Redis (the bench's own redis-server, bench/redis.js),
 *   the load spread over the two round-robin; hookpilot with state.driver postgres beside the PostgreSQL durable
 *   floor (issue 36: the floor's work, then the raw body and key in one INSERT per turn, floors/postgres-durable.js),
 *   both on the bench's own PostgreSQL (bench/postgres.js); @octokit/webhooks'
 *   createNodeMiddleware (verify + parse); the floor server (only the work the request table requires,
 *   nothing stored); the durable floor (SQLite: the floor's work, then each event's raw body and key written,
 *   one transaction per event-loop turn, bench/floors/sqlite-durable.js); a bare node:http server.
 *
 * Issue 19's row: the same sqlite gateway with concurrency groups on its route (one per pull request), beside the
 * one without, both loaded with the events of 50 pull requests in turn (scenario prs).
 *
 * The goals of issue 8 (and issue 9's for redis, 19's for concurrency groups) are ratios against the floor, octokit and one redis instance
 * measured in the same run; a missed goal is printed, not a failure. Then what Redis did per accepted request,
 * and the heap the memory backend holds for its de-dup window. See docs/benchmarks.md.
 *
 * Environment knobs (defaults in brackets):
 *   BENCH_SECONDS [5]      measured seconds per scenario per server, split over BENCH_ROUNDS
 *   BENCH_ROUNDS [2]       rounds per scenario; the server order alternates (A B C, C B A) to cancel drift
 *   BENCH_WARMUP [1]       warm-up seconds per scenario per server, not measured
 *   BENCH_CONNECTIONS [32] concurrent keep-alive connections
 *   BENCH_SCENARIOS [all]  comma-separated: accepted, duplicates, invalid, prs
 *   BENCH_SERVERS [all]    comma-separated: bare, floor, sqlite-floor, sqlite-floor-worker, octokit, sqlite, sqlite-full, memory,
 *                          redis-durable, redis, redis-2, postgres-floor, postgres, sqlite-groups (floor is always
 *                          run, sqlite-floor whenever a sqlite row is, postgres-floor whenever postgres is; the redis
 *                          and postgres rows are skipped, with a note, when redis-server or PostgreSQL is not
 *                          installed)
 *   BENCH_DEBOUNCE [0]     debounce_seconds of the sqlite-groups route (0: jobs due at once, like the other rows')
 *   BENCH_AGENT [busy]     busy: every agent run lasts the whole bench, so accepted events wait in the queue and
 *                          the acknowledgement is measured; echo: each job also runs to done in the window
 *   BENCH_HEAP [1]         0 skips the memory backend's heap measurement
 *   BENCH_HANDLE [1]       0 skips CPU per event without sockets (handle-cost.js: acknowledgement, whole life)
 *   BENCH_CPU_PROF [dir]   write a --cpu-prof profile of each server process into dir
 *   BENCH_JSON [file]      also write every figure as JSON
 */
import { mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { measureHandleCost, measureHeap, stateFile } from './after-load.js'
import { ask, killAll, start, stopAll } from './procs.js'
import { INSTALL_HINT, redisAvailable, startRedis } from './redis.js'
import { INSTALL_HINT as POSTGRES_HINT, postgresBin, startPostgres } from './postgres.js'
import { printGoals, printHandleCost, printHeap, printRedis, printRoundTrips, printStateFiles, printTable } from './report.js'

const num = (name, fallback) => {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`)
  return value
}
const list = (name) => (process.env[name] ? new Set(process.env[name].split(',').map((s) => s.trim())) : undefined)
const SECONDS = num('BENCH_SECONDS', 5)
const ROUNDS = Math.max(1, Math.round(num('BENCH_ROUNDS', 2)))
const WARMUP = num('BENCH_WARMUP', 1)
const CONNECTIONS = Math.max(1, Math.round(num('BENCH_CONNECTIONS', 32)))
const ONLY_SCENARIOS = list('BENCH_SCENARIOS')
const ONLY_SERVERS = list('BENCH_SERVERS')
const WITH_HEAP = process.env.BENCH_HEAP !== '0'
const WITH_HANDLE = process.env.BENCH_HANDLE !== '0'
const AGENT = process.env.BENCH_AGENT || 'busy' // read by server.js too (children inherit the environment)
const CPU_PROF = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined
const JSON_OUT = process.env.BENCH_JSON ? resolve(process.env.BENCH_JSON) : undefined
const HEAP_JOBS = 100_000
/** Issue 2's budget for 100,000 de-dup ids in memory, kept as the reference for the memory backend's window. */
const HEAP_GOAL_MIB = 50
/** Issue 24, item 4: what one finished job may cost the memory backend's heap. */
const HEAP_GOAL_BYTES_PER_JOB = 500

/** A fresh folder per run for the sqlite files: no run measures a file an earlier run filled. */
const stateDir = mkdtempSync(join(os.tmpdir(), 'hookpilot-bench-'))

/** The servers, how to start them, and what they answer to each scenario (bare answers 202 to everything). */
const SERVERS = {
  bare: { label: 'bare node:http', args: ['bare'], status: { accepted: 202, duplicates: 202, invalid: 202 } },
  floor: { label: 'floor: HMAC+parse+dedupe', args: ['floor'], status: { accepted: 202, duplicates: 200, invalid: 401 } },
  octokit: { label: '@octokit/webhooks middleware', args: ['octokit'], status: { accepted: 200 } },
  'sqlite-floor': {
    label: 'durable floor (SQLite)', args: ['sqlite-floor', join(stateDir, 'floor.db')], status: { accepted: 202 },
  },
  // Issue 24, item 3: the same durable floor with its writer in a worker thread (bench/floors/sqlite-worker.js).
  'sqlite-floor-worker': {
    label: 'durable floor, writer thread', args: ['sqlite-floor-worker', join(stateDir, 'floor-worker.db')], status: { accepted: 202 },
  },
  sqlite: {
    label: 'hookpilot, sqlite (sync normal)', args: ['sqlite', join(stateDir, 'normal.db'), 'normal'], file: join(stateDir, 'normal.db'),
    status: { accepted: 202, duplicates: 200, invalid: 401, prs: 202 },
  },
  'sqlite-full': {
    label: 'hookpilot, sqlite (sync full)', args: ['sqlite', join(stateDir, 'full.db'), 'full'], file: join(stateDir, 'full.db'),
    status: { accepted: 202 },
  },
  'sqlite-groups': {
    label: 'hookpilot, sqlite, 1 group per PR', args: ['sqlite-groups', join(stateDir, 'groups.db')], file: join(stateDir, 'groups.db'),
    status: { prs: 202 },
  },
  memory: { label: 'hookpilot, memory', args: ['memory'], status: { accepted: 202 } },
  // One prefix per row in the bench's own Redis: each row has its queue, sequence and de-dup keys to itself.
  redis: { label: 'hookpilot, redis (1 instance)', redisPrefix: 'bench-1', instances: 1, status: { accepted: 202 } },
  'redis-2': { label: 'hookpilot, redis (2 instances)', redisPrefix: 'bench-2', instances: 2, status: { accepted: 202 } },
  // Issue 24: the floor's work, then one Lua call (SET NX the key, LPUSH the raw body) on the same Redis.
  'redis-durable': { label: 'durable floor (Redis)', redisPrefix: 'bench-floor', script: 'redis-durable', status: { accepted: 202 } },
  // Issue 36: the PostgreSQL durable floor and hookpilot on the bench's own PostgreSQL (fsync and synchronous
  // commit on), each in its own schema or table.
  'postgres-floor': { label: 'durable floor (PostgreSQL)', postgres: 'postgres-floor', status: { accepted: 202 } },
  postgres: { label: 'hookpilot, postgres', postgres: 'postgres', status: { accepted: 202 } },
}
const REDIS_KINDS = ['redis', 'redis-2', 'redis-durable']
const POSTGRES_KINDS = ['postgres', 'postgres-floor']
const HAVE_POSTGRES = postgresBin() !== undefined
const CORES = os.availableParallelism()
const HAVE_REDIS = redisAvailable()
/** The durable floor runs whenever a sqlite row does: issue 24's goal is set on it. */
const durableFloorWanted = () => !ONLY_SERVERS || [...ONLY_SERVERS].some((kind) => kind.startsWith('sqlite'))
/** The PostgreSQL durable floor runs whenever the postgres row does: issue 36's goal is set on it. */
const postgresFloorWanted = () => !ONLY_SERVERS || ONLY_SERVERS.has('postgres') || ONLY_SERVERS.has('postgres-floor')
const wanted = (kind) => kind === 'floor' || (kind === 'sqlite-floor' && durableFloorWanted())
  || (POSTGRES_KINDS.includes(kind) ? HAVE_POSTGRES && (kind === 'postgres-floor' ? postgresFloorWanted() : !ONLY_SERVERS || ONLY_SERVERS.has(kind))
    : (!ONLY_SERVERS || ONLY_SERVERS.has(kind)) && (HAVE_REDIS || !REDIS_KINDS.includes(kind)))
const redisSkipped = !HAVE_REDIS && REDIS_KINDS.some((kind) => !ONLY_SERVERS || ONLY_SERVERS.has(kind))
const postgresSkipped = !HAVE_POSTGRES && POSTGRES_KINDS.some((kind) => !ONLY_SERVERS || ONLY_SERVERS.has(kind))

const SCENARIOS = [
  { name: 'accepted', label: 'accepted (202)', servers: ['bare', 'floor', 'sqlite-floor', 'sqlite-floor-worker', 'octokit', 'sqlite', 'sqlite-full', 'memory', 'redis-durable', 'redis', 'redis-2', 'postgres-floor', 'postgres'] },
  // One delivery id for the whole scenario: the first request (in the warm-up) is accepted, the rest are duplicates.
  { name: 'duplicates', label: 'duplicates (200)', servers: ['bare', 'floor', 'sqlite'] },
  { name: 'invalid', label: 'invalid signature (401)', servers: ['bare', 'floor', 'sqlite'] },
  // Issue 19: every accepted event belongs to one of 50 pull requests; the same gateway with and without groups.
  { name: 'prs', label: 'accepted, 50 PRs (202)', servers: ['sqlite', 'sqlite-groups'] },
]
  .filter((s) => !ONLY_SCENARIOS || ONLY_SCENARIOS.has(s.name))
  .map((s) => ({ ...s, servers: s.servers.filter(wanted) }))

/** Issue 8, "Speed": ratios of req/s against servers measured in the same run. */
const GOALS = [
  { scenario: 'accepted', server: 'sqlite', against: 'floor', min: 0.8 },
  { scenario: 'accepted', server: 'sqlite', against: 'octokit', min: 1.0 },
  { scenario: 'accepted', server: 'memory', against: 'floor', min: 0.9 },
  { scenario: 'invalid', server: 'sqlite', against: 'floor', min: 1.0 },
  // Issue 9, "Speed": one instance on Redis against the floor; two instances against one, given spare cores.
  { scenario: 'accepted', server: 'redis', against: 'floor', min: 0.6 },
  // Issue 24: one instance against the durable floor on the same Redis.
  { scenario: 'accepted', server: 'redis', against: 'redis-durable', min: 0.6 },
  {
    scenario: 'accepted', server: 'redis-2', against: 'redis', min: 1.6,
    note: `${CORES} core(s) (os.availableParallelism()) for the loader, both instances and redis-server`,
  },
  // Issue 19, "Speed": concurrency groups (one per pull request) cost the accept path at most 5%.
  { scenario: 'prs', server: 'sqlite-groups', against: 'sqlite', min: 0.95 },
  // Issue 24: durable against durable (the floor that also writes each event to SQLite), and the moonshot above:
  // as fast as octokit's middleware, which keeps nothing (16-core host; printed here too).
  { scenario: 'accepted', server: 'sqlite', against: 'sqlite-floor', min: 1.0 },
  // Issue 36: hookpilot on PostgreSQL against the PostgreSQL durable floor on the same server.
  { scenario: 'accepted', server: 'postgres', against: 'postgres-floor', min: 0.8 },
]

// ---------------------------------------------------------------------------------------------------------
// Measuring

function percentile(sorted, q) {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}

/**
 * Starts the processes of server `kind` (two for redis-2, on one Redis prefix); `redis` and `postgres` are the
 * bench's own servers.
 */
async function startServer(kind, redis, postgres) {
  const spec = SERVERS[kind]
  const args = spec.redisPrefix ? [spec.script ?? 'redis', redis.url, spec.redisPrefix] : spec.postgres ? [spec.postgres, postgres.url] : spec.args
  const children = []
  const ports = []
  for (let i = 0; i < (spec.instances ?? 1); i++) {
    const execArgv = []
    if (CPU_PROF) {
      mkdirSync(CPU_PROF, { recursive: true })
      execArgv.push('--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`, `--cpu-prof-name=${kind}${spec.instances > 1 ? `-${i + 1}` : ''}-${process.pid}.cpuprofile`)
    }
    // Logs go where a deployment sends them: not to a terminal. stderr stays, so a crash is seen.
    const stdout = kind === 'bare' || kind === 'floor' || kind === 'redis-durable' || kind === 'postgres-floor' ? 'inherit' : openSync('/dev/null', 'w')
    const child = start('server.js', args, { execArgv, stdout })
    children.push(child)
    ports.push((await ask(child, undefined, 'ready', 30_000)).port)
  }
  return { kind, children, ports, redis: spec.redisPrefix ? redis : undefined, postgres: spec.postgres ? postgres : undefined }
}

/** CPU time and heap of the server's processes, summed; for a redis row also redis-server's CPU and commands. */
async function usage(server) {
  const answers = await Promise.all(server.children.map((child) => ask(child, { type: 'usage' }, 'usage', 10_000)))
  const sum = { cpuMicros: 0, heapUsed: 0 }
  for (const a of answers) {
    sum.cpuMicros += a.cpuMicros
    sum.heapUsed += a.heapUsed
    if (a.redisCommands) sum.sent = addCounts(sum.sent ?? {}, a.redisCommands)
    if (a.pgStatements !== undefined) sum.pgStatements = (sum.pgStatements ?? 0) + a.pgStatements
  }
  // The bench's PostgreSQL serves one row at a time (the rows are loaded in turn), so its CPU is that row's.
  if (server.postgres) sum.pgCpuMicros = server.postgres.cpuMicros()
  if (server.redis) {
    sum.redisCpuMicros = await server.redis.cpuMicros()
    sum.redisCalls = await server.redis.commandCalls()
  }
  return sum
}

/** `a` plus `b` (or minus, sign -1), name by name. */
function addCounts(a, b, sign = 1) {
  const out = { ...a }
  for (const [name, n] of Object.entries(b ?? {})) out[name] = (out[name] ?? 0) + sign * n
  return out
}

async function loadOnce(loader, server, scenario, seconds) {
  const result = await ask(loader, { type: 'load', ports: server.ports, scenario, seconds, connections: CONNECTIONS }, 'result', (seconds + 30) * 1000)
  if (result.failed) throw new Error(`autocannon against ${server.kind} (${scenario}): ${result.failed}`)
  return result
}

function emptyTally() {
  return { responses: 0, elapsedS: 0, latencies: [], statuses: {}, errors: 0, timeouts: 0, cpuMicros: 0, loaderCpuMicros: 0, redis: undefined, postgres: undefined }
}

/** What the bench's PostgreSQL did for a postgres row during a measured load: its CPU, and the statements sent. */
function addPostgres(tally, before, after) {
  if (after.pgCpuMicros === undefined) return
  const p = tally.postgres ?? { cpuMicros: 0, statements: 0 }
  p.cpuMicros += after.pgCpuMicros - before.pgCpuMicros
  p.statements += (after.pgStatements ?? 0) - (before.pgStatements ?? 0)
  tally.postgres = p
}

/** What the bench's Redis did for a redis row during a measured load: its CPU, commands sent and run. */
function addRedis(tally, before, after) {
  if (after.redisCpuMicros === undefined) return
  const r = tally.redis ?? { cpuMicros: 0, sent: {}, calls: {} }
  r.cpuMicros += after.redisCpuMicros - before.redisCpuMicros
  r.sent = addCounts(addCounts(r.sent, after.sent), before.sent, -1)
  r.calls = addCounts(addCounts(r.calls, after.redisCalls), before.redisCalls, -1)
  tally.redis = r
}

function add(tally, result, cpuMicros) {
  tally.responses += result.responses
  tally.elapsedS += result.elapsedS
  for (const l of result.latencies) tally.latencies.push(l)
  for (const [code, n] of Object.entries(result.statuses)) tally.statuses[code] = (tally.statuses[code] ?? 0) + n
  tally.errors += result.errors
  tally.timeouts += result.timeouts
  tally.cpuMicros += cpuMicros
  tally.loaderCpuMicros += result.cpuMicros ?? 0
}

/** Redis CPU and command counts per expected answer (commands nobody sent in the window left out). */
function perRequest(redis, expected) {
  const per = (counts) => Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0).map(([name, n]) => [name, n / expected]).sort((a, b) => b[1] - a[1]))
  return { cpuMicros: redis.cpuMicros / expected, sent: per(redis.sent), calls: per(redis.calls) }
}

function summarise(tally, expectedStatus) {
  const sorted = Float64Array.from(tally.latencies).sort()
  const expected = tally.statuses[expectedStatus] ?? 0
  // Only the expected answers count: a 503 (queue full) is fast to give and is not an acknowledged event.
  return {
    rps: expected / tally.elapsedS,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    cpuPerRequestMicros: expected > 0 ? tally.cpuMicros / expected : NaN,
    loaderCpuPerRequestMicros: expected > 0 ? tally.loaderCpuMicros / expected : NaN,
    redis: tally.redis && expected > 0 ? perRequest(tally.redis, expected) : undefined,
    postgres: tally.postgres && expected > 0 ? { cpuMicros: tally.postgres.cpuMicros / expected, statements: tally.postgres.statements / expected } : undefined,
    responses: tally.responses,
    statuses: tally.statuses,
    unexpected: tally.responses - expected,
    errors: tally.errors,
    timeouts: tally.timeouts,
  }
}

async function runScenario(loader, servers, scenario, problems) {
  const active = scenario.servers.map((kind) => servers[kind])
  // Without a warm-up, duplicates still need a short unmeasured run: its first request is the accepted one.
  const warmSeconds = WARMUP > 0 ? WARMUP : scenario.name === 'duplicates' ? 0.2 : 0
  for (const server of active) {
    if (warmSeconds <= 0) continue
    const warm = await loadOnce(loader, server, scenario.name, warmSeconds)
    if (scenario.name === 'duplicates' && server.kind !== 'bare' && warm.statuses[202] !== 1) {
      problems.push(`${server.kind} duplicates warm-up: expected exactly one 202 (the first delivery), got ${JSON.stringify(warm.statuses)}`)
    }
  }
  const tallies = new Map(active.map((server) => [server.kind, emptyTally()]))
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? active : [...active].reverse()
    for (const server of order) {
      const before = await usage(server)
      const result = await loadOnce(loader, server, scenario.name, SECONDS / ROUNDS)
      const after = await usage(server)
      add(tallies.get(server.kind), result, after.cpuMicros - before.cpuMicros)
      addRedis(tallies.get(server.kind), before, after)
      addPostgres(tallies.get(server.kind), before, after)
    }
  }
  const rows = []
  for (const server of active) {
    const expected = SERVERS[server.kind].status[scenario.name]
    const row = { scenario: scenario.name, server: server.kind, expectedStatus: expected, ...summarise(tallies.get(server.kind), expected) }
    if (row.unexpected > 0 || row.errors > 0 || row.timeouts > 0) {
      problems.push(`${server.kind} ${scenario.name}: ${row.unexpected} answers other than ${expected} (${JSON.stringify(row.statuses)}), ${row.errors} errors, ${row.timeouts} timeouts`)
    }
    rows.push(row)
  }
  const floor = rows.find((r) => r.server === 'floor')
  for (const row of rows) {
    // Against every server of the scenario (floor, octokit, redis, sqlite: what the goals name); NaN when absent.
    row.vs = { floor: NaN, octokit: NaN, redis: NaN, ...Object.fromEntries(rows.map((other) => [other.server, row.rps / other.rps])) }
    // What the req/s ratio would be if both servers were held back by their own CPU alone: steadier on a busy machine.
    row.cpuVsFloor = floor ? floor.cpuPerRequestMicros / row.cpuPerRequestMicros : NaN
  }
  return rows
}

// ---------------------------------------------------------------------------------------------------------

async function main() {
  const started = Date.now()
  const loader = start('load.js', [])
  const loaderReady = await ask(loader, undefined, 'ready', 30_000)
  const kinds = new Set(SCENARIOS.flatMap((s) => s.servers))
  const redis = REDIS_KINDS.some((kind) => kinds.has(kind)) ? await startRedis(join(stateDir, 'redis')) : undefined
  const postgres = POSTGRES_KINDS.some((kind) => kinds.has(kind)) ? await startPostgres() : undefined
  const servers = {}
  for (const kind of kinds) servers[kind] = await startServer(kind, redis, postgres)

  console.log(
    `hookpilot bench: pull_request "${loaderReady.action}" payload, ${loaderReady.bytes.toLocaleString('en-US')} bytes, signed; ` +
      `${CONNECTIONS} connections over loopback; per scenario and server ${WARMUP} s warm-up + ${SECONDS} s measured ` +
      `in ${ROUNDS} alternating round(s); hookpilot's agent: ${AGENT}; state files in ${stateDir}`,
  )
  console.log(`node ${process.version}, ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? 'unknown'}; availableParallelism ${CORES}), load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  if (redis) console.log(`redis rows: the bench's own ${redis.version} on 127.0.0.1:${redis.port} (appendonly yes, appendfsync everysec, noeviction), one key prefix per row`)
  if (redisSkipped) console.log(`redis rows skipped: redis-server is not installed; ${INSTALL_HINT}`)
  if (postgres) console.log(`postgres rows: the bench's own PostgreSQL on ${new URL(postgres.url).host} (fsync on, synchronous_commit on), a schema per row`)
  if (postgresSkipped) console.log(`postgres rows skipped: PostgreSQL is not installed; ${POSTGRES_HINT}`)
  console.log('')

  const problems = []
  const rows = []
  for (const scenario of SCENARIOS) rows.push(...(await runScenario(loader, servers, scenario, problems)))
  const heapAfter = {}
  for (const kind of Object.keys(servers)) heapAfter[kind] = (await usage(servers[kind])).heapUsed
  const redisFootprint = redis ? await redis.footprint(REDIS_KINDS.filter((k) => servers[k]).map((k) => SERVERS[k].redisPrefix)) : undefined
  // The servers first (a gateway's close still talks to Redis), then the bench's Redis.
  await stopAll([loader, ...Object.values(servers).flatMap((s) => s.children)])
  await redis?.stop()
  await postgres?.stop()
  if (redisFootprint) redisFootprint.aofBytes = redis.aofBytes()
  const files = ['sqlite', 'sqlite-full', 'sqlite-groups'].filter((kind) => servers[kind]).map((kind) => stateFile(kind, SERVERS[kind].file))
  const heap = WITH_HEAP ? await measureHeap(HEAP_JOBS) : undefined
  const handleCost = WITH_HANDLE ? await measureHandleCost(SECONDS, CONNECTIONS, { redis: Boolean(redis) }) : undefined

  const context = { scenarios: SCENARIOS, servers: SERVERS, goals: GOALS }
  printTable(rows, context)
  console.log('')
  printGoals(rows, context)
  console.log('')
  printStateFiles(files, SERVERS)
  if (redisFootprint) printRedis(rows, redisFootprint, { ...context, cores: CORES })
  if (redisSkipped) console.log(`redis rows skipped: redis-server is not installed; ${INSTALL_HINT}`)
  printRoundTrips(rows, { servers: SERVERS, cores: CORES })
  if (postgresSkipped) console.log(`postgres rows skipped: PostgreSQL is not installed; ${POSTGRES_HINT}`)
  if (heap) printHeap(heap, HEAP_GOAL_MIB, HEAP_GOAL_BYTES_PER_JOB)
  if (handleCost) {
    console.log('')
    printHandleCost(handleCost)
  }
  console.log('')
  console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s, load average now ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}. ` +
    'req/s: expected answers (202, 200 for octokit, 200 duplicate, 401) per second; any other is listed under Problems.')
  console.log('vs floor / vs octokit: req/s over theirs in the same run, what the goals are set on. CPU us/req: the server process\'s')
  console.log("user+system CPU time per expected answer; CPU vs floor: floor CPU us/req / this server's, the same ratio if each")
  console.log('server were limited by its own CPU only: steadier than req/s when other processes share the cores. For redis-2 the')
  console.log("CPU is both instances' together; redis-server's own CPU is given under Redis, not in the table.)")
  if (problems.length > 0) {
    console.log('')
    console.log('Problems (figures above are suspect):')
    for (const p of problems) console.log(`  - ${p}`)
    process.exitCode = 1
  }
  if (JSON_OUT) {
    writeFileSync(JSON_OUT, JSON.stringify({
      node: process.version, cpus: os.cpus().length, loadavg: os.loadavg(), connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS,
      availableParallelism: CORES, warmup: WARMUP, payloadBytes: loaderReady.bytes, action: loaderReady.action, rows, goals: GOALS,
      stateFiles: files, redis: redisFootprint, heap, handleCost,
      serverHeapAfter: heapAfter, problems,
    }, null, 2) + '\n')
  }
}

try {
  await main()
} catch (err) {
  console.error(`bench failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`)
  process.exitCode = 1
} finally {
  killAll('SIGKILL')
  rmSync(stateDir, { recursive: true, force: true })
}
