/**
 * Where a server's time went, from a `--cpu-prof` profile (`BENCH_CPU_PROF=dir npm run bench`):
 *
 *   node bench/cpu-profile.js <file.cpuprofile> [top=25] [requests]
 *
 * Prints the functions with the most self time, then the files (and node internals, GC, idle) with the most
 * self time, each as a share of the sampled time; given the number of requests the process answered, also as
 * µs per request. Self time is where the CPU was, not who asked for it: read it with the inclusive times below.
 */
import { readFileSync } from 'node:fs'

const [file, topArg, requestsArg] = process.argv.slice(2)
if (!file) {
  console.error('usage: node bench/cpu-profile.js <file.cpuprofile> [top] [requests]')
  process.exit(2)
}
const top = Number(topArg ?? 25)
const requests = requestsArg === undefined ? undefined : Number(requestsArg)
const profile = JSON.parse(readFileSync(file, 'utf8'))

const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

// Self time per node: each sample is charged the gap to the next one.
const self = new Map()
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0))
}
const total = [...self.values()].reduce((a, b) => a + b, 0)

const short = (url) => url.replace(/^file:\/\/.*?\/(node_modules|dist|bench)\//, '$1/').replace(/^node:/, 'node:')
const frameName = (cf) => `${cf.functionName || '(anonymous)'} ${cf.url ? `${short(cf.url)}:${cf.lineNumber + 1}` : ''}`.trim()
const place = (cf) => (cf.url ? short(cf.url) : cf.functionName.startsWith('(') ? cf.functionName : '(native)')

function tally(key) {
  const out = new Map()
  for (const [id, us] of self) {
    const k = key(nodes.get(id).callFrame)
    out.set(k, (out.get(k) ?? 0) + us)
  }
  return [...out].sort((a, b) => b[1] - a[1])
}

// Inclusive time per function: a sample counts once for every distinct function on its stack.
function inclusive() {
  const out = new Map()
  for (const [id, us] of self) {
    const seen = new Set()
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const k = frameName(nodes.get(n).callFrame)
      if (seen.has(k)) continue
      seen.add(k)
      out.set(k, (out.get(k) ?? 0) + us)
    }
  }
  return [...out].sort((a, b) => b[1] - a[1])
}

const line = ([name, us]) => {
  const pct = ((100 * us) / total).toFixed(1).padStart(5)
  const per = requests ? `  ${(us / requests).toFixed(1).padStart(6)} us/req` : ''
  return `${pct}%${per}  ${name}`
}
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled${requests ? `, ${requests} requests` : ''}`)
console.log('\nself time by function:')
for (const row of tally(frameName).slice(0, top)) console.log(line(row))
console.log('\nself time by file:')
for (const row of tally(place).slice(0, top)) console.log(line(row))
console.log('\ninclusive time by function:')
for (const row of inclusive().slice(0, top)) console.log(line(row))
