/**
 * `npm run bench`: hookpilot against a bare node:http server (and a "floor" server that does only the work the
 * request table requires), each in its own process, loaded over loopback by autocannon from another process with
 * a real signed ~25 KB pull_request payload; then the heap of the idempotency store holding 100,000 delivery ids.
 * See docs/benchmarks.md.
 *
 * Environment knobs (defaults in brackets):
 *   BENCH_SECONDS [5]      measured seconds per scenario per server, split over BENCH_ROUNDS
 *   BENCH_ROUNDS [2]       rounds per scenario; the server order alternates (A B, B A) to cancel drift
 *   BENCH_WARMUP [1]       warm-up seconds per scenario per server, not measured
 *   BENCH_CONNECTIONS [32] concurrent keep-alive connections
 *   BENCH_LOG [1]          0 skips the extra accepted run with the default stdout logger (sent to /dev/null)
 *   BENCH_FLOOR [1]        0 skips the reference server that does only the work the request table requires
 *   BENCH_CPU_PROF [dir]   write a --cpu-prof profile of each gateway process into dir
 *   BENCH_JSON [file]      also write every figure as JSON
 */
import { fork } from 'node:child_process'
import { mkdirSync, openSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))

const num = (name, fallback) => {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`)
  return value
}
const SECONDS = num('BENCH_SECONDS', 5)
const ROUNDS = Math.max(1, Math.round(num('BENCH_ROUNDS', 2)))
const WARMUP = num('BENCH_WARMUP', 1)
const CONNECTIONS = Math.max(1, Math.round(num('BENCH_CONNECTIONS', 32)))
const WITH_LOG = process.env.BENCH_LOG !== '0'
const WITH_FLOOR = process.env.BENCH_FLOOR !== '0'
const CPU_PROF = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined
const JSON_OUT = process.env.BENCH_JSON ? resolve(process.env.BENCH_JSON) : undefined
const IDS = 100_000

/** Goals of issue 2 ("Speed"): gateway req/s over bare req/s, and the store's heap. */
const GOALS = { accepted: 0.7, invalid: 0.9 }
const HEAP_GOAL_MIB = 50

const withBaselines = (...kinds) => ['bare', ...(WITH_FLOOR ? ['floor'] : []), ...kinds]
const SCENARIOS = [
  { name: 'accepted', label: 'accepted (202)', gatewayStatus: 202, servers: withBaselines('gateway', ...(WITH_LOG ? ['gateway-log'] : [])) },
  { name: 'duplicates', label: 'duplicates (200)', gatewayStatus: 200, servers: withBaselines('gateway') },
  { name: 'invalid', label: 'invalid signature (401)', gatewayStatus: 401, servers: withBaselines('gateway') },
]
const SERVER_LABEL = {
  bare: 'bare node:http',
  floor: 'floor: HMAC+parse+dedupe',
  gateway: 'hookpilot',
  'gateway-log': 'hookpilot, stdout log',
}

// ---------------------------------------------------------------------------------------------------------
// Child processes: every one is registered, and every one is killed on the way out, whatever the way out.

const children = new Set()

function start(script, args, { execArgv = [], stdout = 'inherit' } = {}) {
  const child = fork(join(here, script), args, { execArgv, stdio: ['ignore', stdout, 'inherit', 'ipc'] })
  child.label = [script, ...args].join(' ')
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

function killAll(signal = 'SIGKILL') {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  }
}

/** Asks children to exit (a --cpu-prof profile is written on a normal exit), then kills what is left. */
async function stopAll() {
  const exits = [...children].map((child) => new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done()
    child.once('exit', done)
    if (child.connected) child.send({ type: 'stop' }, () => {})
  }))
  let timer
  await Promise.race([Promise.all(exits), new Promise((done) => (timer = setTimeout(done, 3000)))])
  clearTimeout(timer)
  killAll('SIGKILL')
}

process.on('exit', () => killAll('SIGKILL'))
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    killAll('SIGKILL')
    process.exit(128 + (os.constants.signals[signal] ?? 1))
  })
}

let nextId = 1
/** Sends `message` and resolves with the child's answer of type `type` (and the same id), or rejects. */
function ask(child, message, type, timeoutMs = 60_000) {
  const id = nextId++
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer)
      child.off('message', onMessage).off('exit', onExit)
    }
    const onMessage = (m) => {
      if (m?.type === 'failed') {
        cleanup()
        reject(new Error(`${child.label}: ${m.reason}`))
      } else if (m?.type === type && (m.id === undefined || m.id === id)) {
        cleanup()
        resolve(m)
      }
    }
    const onExit = (code, signal) => {
      cleanup()
      reject(new Error(`${child.label} exited (${signal ?? code}) while we waited for "${type}"`))
    }
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`${child.label} gave no "${type}" within ${timeoutMs} ms`))
    }, timeoutMs)
    child.on('message', onMessage).once('exit', onExit)
    if (message) child.send({ ...message, id })
  })
}

// ---------------------------------------------------------------------------------------------------------
// Measuring

function percentile(sorted, q) {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}

async function startServer(kind) {
  const execArgv = []
  if (CPU_PROF && kind.startsWith('gateway')) {
    mkdirSync(CPU_PROF, { recursive: true })
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`, `--cpu-prof-name=${kind}-${process.pid}.cpuprofile`)
  }
  const stdout = kind === 'gateway-log' ? openSync('/dev/null', 'w') : 'inherit'
  const child = start('server.js', [kind], { execArgv, stdout })
  const ready = await ask(child, undefined, 'ready', 30_000)
  return { kind, child, port: ready.port }
}

async function usage(server) {
  return ask(server.child, { type: 'usage' }, 'usage', 10_000)
}

async function loadOnce(loader, server, scenario, seconds) {
  const result = await ask(loader, { type: 'load', port: server.port, scenario, seconds, connections: CONNECTIONS }, 'result', (seconds + 30) * 1000)
  if (result.failed) throw new Error(`autocannon against ${server.kind} (${scenario}): ${result.failed}`)
  return result
}

function emptyTally() {
  return { responses: 0, elapsedS: 0, latencies: [], statuses: {}, errors: 0, timeouts: 0, cpuMicros: 0 }
}

function add(tally, result, cpuMicros) {
  tally.responses += result.responses
  tally.elapsedS += result.elapsedS
  for (const l of result.latencies) tally.latencies.push(l)
  for (const [code, n] of Object.entries(result.statuses)) tally.statuses[code] = (tally.statuses[code] ?? 0) + n
  tally.errors += result.errors
  tally.timeouts += result.timeouts
  tally.cpuMicros += cpuMicros
}

function summarise(tally, expectedStatus) {
  const sorted = Float64Array.from(tally.latencies).sort()
  const expected = tally.statuses[expectedStatus] ?? 0
  return {
    rps: tally.responses / tally.elapsedS,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    cpuPerRequestMicros: tally.responses > 0 ? tally.cpuMicros / tally.responses : NaN,
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
    // The first request of the duplicates scenario is the one that is accepted: it happens here.
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
    }
  }
  const rows = []
  for (const server of active) {
    const expected = server.kind === 'bare' ? 202 : scenario.gatewayStatus
    const row = { scenario: scenario.name, server: server.kind, expectedStatus: expected, ...summarise(tallies.get(server.kind), expected) }
    if (row.unexpected > 0 || row.errors > 0 || row.timeouts > 0) {
      problems.push(`${server.kind} ${scenario.name}: ${row.unexpected} answers other than ${expected} (${JSON.stringify(row.statuses)}), ${row.errors} errors, ${row.timeouts} timeouts`)
    }
    rows.push(row)
  }
  const bare = rows.find((r) => r.server === 'bare')
  for (const row of rows) {
    if (row === bare) continue
    row.ratio = row.rps / bare.rps
    // What the req/s ratio would be if both servers were held back by their own CPU alone: steadier on a busy machine.
    row.cpuRatio = bare.cpuPerRequestMicros / row.cpuPerRequestMicros
  }
  return rows
}

async function measureStore() {
  const child = start('idempotency-memory.js', [String(IDS)], { execArgv: ['--expose-gc'], stdout: 'pipe' })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
  const code = await new Promise((done) => child.once('exit', (c, s) => done(c ?? s)))
  if (code !== 0) throw new Error(`idempotency-memory.js exited with ${code}`)
  return JSON.parse(out.trim().split('\n').at(-1))
}

// ---------------------------------------------------------------------------------------------------------
// Printing

const fmtInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-')
const fmtMs = (n) => (Number.isFinite(n) ? n.toFixed(2) : '-')
const verdict = (ok) => (ok ? 'PASS' : 'MISS')

function goalText(row) {
  if (row.ratio === undefined) return ''
  if (row.server === 'gateway-log') return 'info: logging on'
  if (row.server === 'floor') return 'reference: required work only'
  const goal = GOALS[row.scenario]
  return goal === undefined ? 'no stated goal' : `>= ${goal.toFixed(2)}  ${verdict(row.ratio >= goal)}`
}

function table(rows, headers, align) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells) => cells.map((c, i) => (align[i] === 'r' ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd()
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}

function printResults(rows, store) {
  const cells = []
  let previous
  for (const row of rows) {
    const scenario = SCENARIOS.find((s) => s.name === row.scenario)
    cells.push([
      row.scenario === previous ? '' : scenario.label,
      SERVER_LABEL[row.server],
      fmtInt(row.rps),
      fmtMs(row.p50),
      fmtMs(row.p99),
      fmtInt(row.cpuPerRequestMicros),
      row.ratio === undefined ? '' : row.ratio.toFixed(2),
      row.cpuRatio === undefined ? '' : row.cpuRatio.toFixed(2),
      goalText(row),
    ])
    previous = row.scenario
  }
  console.log(table(cells, ['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'vs bare', 'CPU ratio', 'goal (vs bare)'], ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'l']))
  console.log('')
  console.log(
    `idempotency store, ${store.count.toLocaleString('en-US')} delivery ids: ${store.mib.toFixed(1)} MiB of heap ` +
      `(${Math.round(store.bytesPerId)} bytes per id)  goal < ${HEAP_GOAL_MIB} MiB  ${verdict(store.mib < HEAP_GOAL_MIB && store.held)}`,
  )
}

// ---------------------------------------------------------------------------------------------------------

async function main() {
  const started = Date.now()
  const loader = start('load.js', [])
  const loaderReady = await ask(loader, undefined, 'ready', 30_000)
  const servers = {}
  for (const kind of new Set(SCENARIOS.flatMap((s) => s.servers))) servers[kind] = await startServer(kind)

  console.log(
    `hookpilot bench: pull_request "${loaderReady.action}" payload, ${loaderReady.bytes.toLocaleString('en-US')} bytes, signed; ` +
      `${CONNECTIONS} connections over loopback; per scenario and server ${WARMUP} s warm-up + ${SECONDS} s measured ` +
      `in ${ROUNDS} alternating round(s)`,
  )
  console.log(`node ${process.version}, ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  console.log('')

  const problems = []
  const rows = []
  for (const scenario of SCENARIOS) rows.push(...(await runScenario(loader, servers, scenario, problems)))
  const gatewayHeap = {}
  for (const kind of Object.keys(servers)) gatewayHeap[kind] = (await usage(servers[kind])).heapUsed
  await stopAll()

  const store = await measureStore()
  printResults(rows, store)
  console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s. vs bare: gateway req/s / bare req/s, what the goals are set on. CPU us/req: the server`)
  console.log("process's user+system CPU time per answer; CPU ratio: bare CPU us/req / gateway CPU us/req, the same ratio")
  console.log('if each server were limited by its own CPU only: steadier than req/s when other processes share the cores.)')
  if (problems.length > 0) {
    console.log('')
    console.log('Problems (figures above are suspect):')
    for (const p of problems) console.log(`  - ${p}`)
    process.exitCode = 1
  }
  if (JSON_OUT) {
    const figures = rows.map(({ statuses, ...rest }) => ({ ...rest, statuses }))
    writeFileSync(JSON_OUT, JSON.stringify({
      node: process.version, cpus: os.cpus().length, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, warmup: WARMUP,
      payloadBytes: loaderReady.bytes, action: loaderReady.action, rows: figures, store, serverHeapAfter: gatewayHeap, problems,
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
}
