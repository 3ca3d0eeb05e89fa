/**
 * What fair turns cost the lease: 1,000 queued jobs over 50 fairness keys (a route's `fair_by`), leased and
 * finished by a worker that ends each at once, against the same 1,000 jobs without keys (every turn 0, the order
 * before fairness). Per backend (memory, SQLite on a temporary file), the rounds alternate with and without keys
 * and the median of each is kept, in CPU milliseconds of this process and in wall milliseconds; the ratio is with /
 * without (goal: within 5 %, docs/costs.md).
 *
 *   node bench/fair-lease.js [rounds] [jobs] [keys]
 *
 * Only the leasing is timed (from the worker's start until it was handed the last job); the adds before it are
 * not, since their cost is the accept path's (three index reads more per add on SQL). Prints one JSON line.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { silentLogger } from '../dist/index.js'
import { memoryState } from '../dist/plugins/state/memory/memory-state.js'
import { sqliteState } from '../dist/plugins/state/sqlite/sqlite-state.js'

const rounds = Number(process.argv[2] ?? 15)
const jobs = Number(process.argv[3] ?? 1_000)
const keys = Number(process.argv[4] ?? 50)
const CONCURRENCY = 8

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
  const { state, done } = await make()
  await state.start({ log: silentLogger })
  for (let i = 0; i < jobs; i++) await state.queue.add(job(i, fair), await state.dedup.reserve(`pr\u0000d${i}`))
  let finished = 0
  let allDone = () => {}
  const all = new Promise((resolve) => (allDone = resolve))
  const started = performance.now()
  const cpu = process.cpuUsage()
  state.queue.start(async () => {
    if (++finished === jobs) allDone()
    return { kind: 'done' }
  })
  await all
  const ms = performance.now() - started
  const used = process.cpuUsage(cpu)
  await drained(state)
  await state.queue.stop(0)
  await state.close?.()
  await done?.()
  return { ms, cpuMs: (used.user + used.system) / 1000 }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

const backends = {
  memory: async () => ({ state: memoryState({ concurrency: CONCURRENCY, maxQueue: jobs, pollMs: 5 }) }),
  sqlite: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-fair-'))
    return { state: sqliteState({ path: join(dir, 'state.db'), concurrency: CONCURRENCY, maxQueue: jobs, pollMs: 5 }), done: () => rm(dir, { recursive: true, force: true }) }
  },
}

const out = { jobs, keys, concurrency: CONCURRENCY, rounds }
for (const [name, make] of Object.entries(backends)) {
  await leaseTime(make, true) // warm-up: the first round pays for JIT and the file system's cache
  const times = { with: [], without: [] }
  for (let r = 0; r < rounds; r++) {
    times.without.push(await leaseTime(make, false))
    times.with.push(await leaseTime(make, true))
  }
  const figure = (key) => {
    const withKeys = median(times.with.map((t) => t[key]))
    const withoutKeys = median(times.without.map((t) => t[key]))
    return { withKeys: Math.round(withKeys), withoutKeys: Math.round(withoutKeys), ratio: Number((withKeys / withoutKeys).toFixed(3)) }
  }
  // CPU is the steadier figure on a shared machine: wall time also counts the other processes' turns.
  out[name] = { cpuMs: figure('cpuMs'), wallMs: figure('ms') }
}
console.log(JSON.stringify(out))
