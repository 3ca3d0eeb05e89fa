/**
 * What fair turns cost the lease: 1,000 queued jobs over 50 fairness keys (a route's `fair_by`), leased and
 * finished by a worker that ends each at once, against the same 1,000 jobs without keys (every turn 0, the order
 * before fairness). Per backend (memory; SQLite on a temporary file; Redis, on the bench's own redis-server,
 * bench/redis.js, when one is installed), rounds of one run with keys and one without, back to back and in turns
 * first, are kept: at least `rounds` of them, and more while the backend's rounds have taken less than
 * BENCH_FAIR_SECONDS (10 s), so a backend whose run takes milliseconds is measured as many times as it takes to
 * read a few per cent. The figures are the medians of each, in CPU milliseconds and in wall milliseconds, and the
 * ratio is with / without (goal: within 5 %, docs/costs.md), with the median of the rounds' own ratios beside it:
 * the steadier figure on a shared machine, since the two runs of a round meet about the same load.
 *
 *   node bench/fair-lease.js [rounds] [jobs] [keys]
 *   BENCH_FAIR_BACKENDS=memory,redis node bench/fair-lease.js   (some backends only)
 *   BENCH_FAIR_SECONDS=30 node bench/fair-lease.js              (longer: steadier)
 *
 * Only the leasing is timed (from the worker's start until it was handed the last job); the adds before it are
 * not, since their cost is the accept path's (three index reads more per add on SQL, the turn's reads inside the
 * admission's script on Redis). CPU is this process's, and on Redis redis-server's too (its INFO, every thread):
 * there the leasing is Redis' scripts as much as the worker's. Prints one JSON line.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { silentLogger } from '../dist/index.js'
import { memoryState } from '../dist/plugins/state/memory/memory-state.js'
import { sqliteState } from '../dist/plugins/state/sqlite/sqlite-state.js'
import { redisState } from '../dist/plugins/state/redis/redis-state.js'
import { Redis } from 'ioredis'
import { INSTALL_HINT, redisAvailable, startRedis } from './redis.js'

const rounds = Number(process.argv[2] ?? 15)
const jobs = Number(process.argv[3] ?? 1_000)
const keys = Number(process.argv[4] ?? 50)
const CONCURRENCY = 8
const only = process.env.BENCH_FAIR_BACKENDS?.split(',').map((name) => name.trim())
const seconds = Number(process.env.BENCH_FAIR_SECONDS ?? 10)

const payload = { repository: { full_name: 'octo/repo' }, number: 1 }
const payloadJson = JSON.stringify(payload)

/** Job `i`, of key `i mod keys` (jobs of a key spread as a busy hour spreads them), or of none. */
function job(i, fair) {
  return {
    route: 'pr', event: 'pull_request', deliveryId: `d${i}`, dedupKey: `pr\u0000d${i}`, payload, payloadJson, receivedAt: Date.now(),
    ...(fair ? { fairKey: `octo/repo-${i % keys}` } : {}),
  }
}

async function drained(state) {
  for (;;) {
    const { queued, running } = await state.jobs.counts()
    if (queued + running === 0) return
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}

/** Milliseconds to lease and finish `jobs` queued jobs on a fresh backend made by `make`. */
async function leaseTime(make, fair) {
  const { state, done, storeCpuMicros } = await make()
  await state.start({ log: silentLogger })
  for (let i = 0; i < jobs; i++) await state.queue.add(job(i, fair), await state.dedup.reserve(`pr\u0000d${i}`))
  let finished = 0
  let allDone = () => {}
  const all = new Promise((resolve) => (allDone = resolve))
  const storeBefore = await storeCpuMicros?.()
  const started = performance.now()
  const cpu = process.cpuUsage()
  state.queue.start(async () => {
    if (++finished === jobs) allDone()
    return { kind: 'done' }
  })
  await all
  const ms = performance.now() - started
  const used = process.cpuUsage(cpu)
  const store = storeBefore === undefined ? 0 : (await storeCpuMicros()) - storeBefore
  await drained(state)
  await state.queue.stop(0)
  await state.close?.()
  await done?.()
  return { ms, cpuMs: (used.user + used.system + store) / 1000 }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

let redis
let redisClient
let redisDir
const backends = {
  memory: async () => ({ state: memoryState({ concurrency: CONCURRENCY, maxQueue: jobs, pollMs: 5 }) }),
  sqlite: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-fair-'))
    return { state: sqliteState({ path: join(dir, 'state.db'), concurrency: CONCURRENCY, maxQueue: jobs, pollMs: 5 }), done: () => rm(dir, { recursive: true, force: true }) }
  },
  redis: async () => {
    if (!redis) {
      redisDir = await mkdtemp(join(tmpdir(), 'hookpilot-fair-redis-'))
      redis = await startRedis(redisDir)
      redisClient = new Redis(redis.port, '127.0.0.1')
    }
    const { state } = redisState({ url: redis.url, prefix: 'fair', concurrency: CONCURRENCY, maxQueue: jobs })
    // The bench's own server, emptied after each run: every run starts from the same empty store.
    return { state, done: () => redisClient.flushdb(), storeCpuMicros: () => redis.cpuMicros() }
  },
}

const out = { jobs, keys, concurrency: CONCURRENCY }
try {
  for (const [name, make] of Object.entries(backends)) {
    if (only && !only.includes(name)) continue
    if (name === 'redis' && !redisAvailable()) {
      out.redis = `skipped: redis-server is not installed; ${INSTALL_HINT}`
      continue
    }
    await leaseTime(make, true) // warm-up: the first round pays for JIT and the file system's cache
    const times = { with: [], without: [] }
    const until = performance.now() + seconds * 1000
    for (let r = 0; r < rounds || performance.now() < until; r++) {
      // In turns first, so neither always runs just after the other's garbage or a warm cache.
      for (const fair of r % 2 === 0 ? [false, true] : [true, false]) times[fair ? 'with' : 'without'].push(await leaseTime(make, fair))
    }
    const figure = (key) => {
      const withKeys = median(times.with.map((t) => t[key]))
      const withoutKeys = median(times.without.map((t) => t[key]))
      const roundRatio = median(times.with.map((t, r) => t[key] / times.without[r][key]))
      return {
        withKeys: Number(withKeys.toFixed(1)), withoutKeys: Number(withoutKeys.toFixed(1)), ratio: Number((withKeys / withoutKeys).toFixed(3)),
        roundRatio: Number(roundRatio.toFixed(3)),
      }
    }
    // CPU is the steadier figure on a shared machine: wall time also counts the other processes' turns.
    out[name] = { rounds: times.with.length, cpuMs: figure('cpuMs'), wallMs: figure('ms') }
  }
} finally {
  redisClient?.disconnect()
  await redis?.stop()
  if (redisDir) await rm(redisDir, { recursive: true, force: true })
}
console.log(JSON.stringify(out))
