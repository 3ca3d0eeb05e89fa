/**
 * Printing the bench: one table of every scenario and server with ratios against the floor and octokit of the
 * same run, then the goals of issue 8 ("Speed") met or missed, the state files and the memory backend's heap.
 * A missed goal is printed, never an exit code: the figures are to be read, on a machine that may be busy.
 */

const fmtInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-')
const fmtMs = (n) => (Number.isFinite(n) ? n.toFixed(2) : '-')
const fmtRatio = (n) => (Number.isFinite(n) ? n.toFixed(2) : '')
const mib = (bytes) => (bytes / 2 ** 20).toFixed(1)
export const verdict = (ok) => (ok ? 'PASS' : 'MISS')

function table(rows, headers, align) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells) => cells.map((c, i) => (align[i] === 'r' ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd()
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}

/** The goals that hold on `row`, as `>= 0.80 floor PASS` fragments. */
function goalCells(row, goals) {
  return goals
    .filter((g) => g.scenario === row.scenario && g.server === row.server)
    .map((g) => `>= ${g.min.toFixed(2)} ${g.against} ${verdict(row.vs[g.against] >= g.min)}`)
    .join(', ')
}

/** The main table: `rows` as run.js measured them (with `vs` and `cpuVsFloor` filled in). */
export function printTable(rows, { scenarios, servers, goals }) {
  const cells = []
  let previous
  for (const row of rows) {
    cells.push([
      row.scenario === previous ? '' : scenarios.find((s) => s.name === row.scenario).label,
      servers[row.server].label,
      fmtInt(row.rps),
      fmtMs(row.p50),
      fmtMs(row.p99),
      fmtInt(row.cpuPerRequestMicros),
      row.server === 'floor' ? '' : fmtRatio(row.vs.floor),
      row.server === 'octokit' ? '' : fmtRatio(row.vs.octokit),
      row.server === 'floor' ? '' : fmtRatio(row.cpuVsFloor),
      goalCells(row, goals),
    ])
    previous = row.scenario
  }
  const headers = ['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'vs floor', 'vs octokit', 'CPU vs floor', 'goal (req/s ratio)']
  console.log(table(cells, headers, ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l']))
}

/** Every goal, met or missed, with the CPU ratio beside the req/s one. */
export function printGoals(rows, { servers, goals }) {
  console.log('Goals (issues 8, 9, 19 and 24, "Speed"; ratios of req/s measured in this run, CPU ratio in brackets):')
  for (const g of goals) {
    const row = rows.find((r) => r.scenario === g.scenario && r.server === g.server)
    const name = `${servers[g.server].label}, ${g.scenario}: >= ${g.min.toFixed(2)} x ${g.against}`
    if (!row || !Number.isFinite(row.vs[g.against])) {
      console.log(`  ${name.padEnd(66)} not measured`)
      continue
    }
    const against = rows.find((r) => r.scenario === g.scenario && r.server === g.against)
    const cpu = against ? against.cpuPerRequestMicros / row.cpuPerRequestMicros : NaN
    const note = g.note ? `  [${g.note}]` : ''
    console.log(`  ${name.padEnd(66)} ${row.vs[g.against].toFixed(2)} (CPU ${fmtRatio(cpu)})  ${verdict(row.vs[g.against] >= g.min)}${note}`)
  }
}

/** What the state files hold after the run: jobs, bytes, bytes per job. */
export function printStateFiles(files, servers) {
  for (const f of files) {
    if (f.error) {
      console.log(`${servers[f.server].label} state file: cannot read it (${f.error})`)
      continue
    }
    const perJob = f.jobs > 0 ? `, ${(f.bytes / f.jobs / 1024).toFixed(1)} KiB per job` : ''
    console.log(
      `${servers[f.server].label} state file: ${f.jobs.toLocaleString('en-US')} jobs (${JSON.stringify(f.states)}), ` +
        `${mib(f.bytes)} MiB with its WAL${perJob} (payload ${(f.payloadBytes / Math.max(1, f.jobs) / 1024).toFixed(1)} KiB per job)`,
    )
  }
}

/**
 * The redis rows: what redis-server did per accepted request (its CPU; the commands hookpilot sent, each a
 * round trip unless pipelined; the commands Redis ran, scripts' own included), and what it holds after the run.
 */
export function printRedis(rows, footprint, { servers, cores }) {
  const counts = (per) => {
    const entries = Object.entries(per)
    const total = entries.reduce((sum, [, n]) => sum + n, 0)
    const shown = entries.filter(([, n]) => n >= 0.05).map(([name, n]) => `${name} ${n.toFixed(1)}`).join(', ')
    return `${total.toFixed(1)} (${shown})`
  }
  console.log('Redis, per accepted request in the measured windows:')
  for (const row of rows.filter((r) => r.redis)) {
    const instances = servers[row.server].instances ?? 1
    // Every process of the row on the same cores: hookpilot, redis-server and the loader. Their CPU per request
    // bounds req/s to cores / (sum), whatever the number of instances.
    const all = row.redis.cpuMicros + row.cpuPerRequestMicros + row.loaderCpuPerRequestMicros
    console.log(
      `  ${servers[row.server].label}: redis-server CPU ${fmtInt(row.redis.cpuMicros)} us, the server ${fmtInt(row.cpuPerRequestMicros)} us` +
        `${instances > 1 ? ` (${instances} instances together)` : ''}, the loader ${fmtInt(row.loaderCpuPerRequestMicros)} us: ` +
        `${fmtInt(all)} us of CPU in all, so ${cores} core(s) allow at most ${fmtInt((cores * 1e6) / all)} req/s (measured ${fmtInt(row.rps)})`,
    )
    console.log(`    commands the server sent: ${counts(row.redis.sent)}`)
    console.log(`    commands Redis ran (a script's own calls included): ${counts(row.redis.calls)}`)
  }
  const jobs = Object.values(footprint.jobs).reduce((a, b) => a + b, 0)
  const perJob = (bytes) => (jobs > 0 ? `, ${(bytes / jobs / 1024).toFixed(1)} KiB per job` : '')
  console.log(
    `  after the run: ${jobs.toLocaleString('en-US')} jobs stored (${Object.entries(footprint.jobs).map(([p, n]) => `${p} ${n.toLocaleString('en-US')}`).join(', ')}); ` +
      `used_memory ${mib(footprint.usedMemory)} MiB${perJob(footprint.usedMemory)}; append-only files ${mib(footprint.aofBytes)} MiB${perJob(footprint.aofBytes)}`,
  )
}

/**
 * What each durable row costs its store per accepted request: round trips (PostgreSQL statements, Redis
 * commands sent; SQLite none, it is in the process) and the store server's CPU, with the postgres row's ratio to
 * its durable floor. Every process of a row shares the cores: the CPU of all of them bounds its req/s.
 */
export function printRoundTrips(rows, { servers, cores }) {
  const accepted = rows.filter((r) => r.scenario === 'accepted')
  const shown = accepted.filter((r) => r.postgres || r.redis || r.server === 'sqlite' || r.server === 'sqlite-floor')
  if (!shown.some((r) => r.postgres)) return
  console.log('')
  console.log('Round trips to the store and its CPU, per accepted request (accepted scenario):')
  for (const row of shown) {
    const label = servers[row.server].label.padEnd(34)
    if (row.postgres) {
      const all = row.postgres.cpuMicros + row.cpuPerRequestMicros + row.loaderCpuPerRequestMicros
      const floor = row.server === 'postgres' ? accepted.find((r) => r.server === 'postgres-floor') : undefined
      const ratio = floor ? `; ${fmtRatio(row.rps / floor.rps)} x the PostgreSQL floor's req/s (CPU ${fmtRatio((floor.cpuPerRequestMicros + floor.postgres.cpuMicros) / (row.cpuPerRequestMicros + row.postgres.cpuMicros))})` : ''
      console.log(`  ${label} ${row.postgres.statements.toFixed(2)} statements (each a round trip); PostgreSQL CPU ${fmtInt(row.postgres.cpuMicros)} us, ` +
        `the server ${fmtInt(row.cpuPerRequestMicros)} us, all processes ${fmtInt(all)} us, so ${cores} core(s) allow at most ${fmtInt((cores * 1e6) / all)} req/s${ratio}`)
    } else if (row.redis) {
      const sent = Object.values(row.redis.sent).reduce((sum, n) => sum + n, 0)
      console.log(`  ${label} ${sent.toFixed(2)} commands sent (each a round trip unless pipelined); redis-server CPU ${fmtInt(row.redis.cpuMicros)} us, the server ${fmtInt(row.cpuPerRequestMicros)} us`)
    } else {
      console.log(`  ${label} 0 round trips (the store is in the process: one transaction per turn of the event loop); the server ${fmtInt(row.cpuPerRequestMicros)} us`)
    }
  }
}

/** The memory backend's heap with finished jobs (bench/dedup-memory.js). */
export function printHeap(heap, goalMib, goalBytesPerJob) {
  const keys = heap.keys
  console.log(
    `memory backend, ${keys.count.toLocaleString('en-US')} finished jobs holding their de-dup keys (payload {}): ` +
      `${keys.mib.toFixed(1)} MiB of heap (${Math.round(keys.bytesPerJob)} bytes per job)  goals < ${goalMib} MiB ` +
      `${verdict(keys.mib < goalMib && keys.held)}, <= ${goalBytesPerJob} bytes per job ${verdict(keys.bytesPerJob <= goalBytesPerJob && keys.held)}`,
  )
  const p = heap.payloads
  console.log(
    `  with the ${fmtInt(p.payloadBytes)}-byte pull_request payload each (${p.count.toLocaleString('en-US')} jobs measured): ` +
      `${fmtInt(p.bytesPerJob)} bytes per job, so ${(p.bytesPerJob * keys.count / 2 ** 30).toFixed(2)} GiB for ` +
      `${keys.count.toLocaleString('en-US')} (the backend keeps finished jobs, payload included, for an hour, up to 100,000)`,
  )
}

/** CPU per event without sockets: the acknowledgement (agents busy) and the whole life (echo), per backend. */
export function printHandleCost(runs) {
  const find = (kind, agent) => runs.find((r) => r.kind === kind && r.agent === agent)
  const floor = find('floor', 'busy')
  console.log(`Without sockets (gateway.handle(), ${floor?.connections ?? '?'} loops, us of CPU per accepted event; the floor: ${fmtInt(floor?.cpuMicrosPerEvent)}):`)
  for (const kind of ['sqlite', 'memory']) {
    const ack = find(kind, 'busy')
    const life = find(kind, 'echo')
    if (!ack || !life) continue
    console.log(
      `  ${kind.padEnd(7)} acknowledgement ${fmtInt(ack.cpuMicrosPerEvent).padStart(5)} (${(floor.cpuMicrosPerEvent / ack.cpuMicrosPerEvent).toFixed(2)} x floor)` +
        `   whole life (echo agent, queue drained) ${fmtInt(life.cpuMicrosPerEvent).padStart(5)} (+${fmtInt(life.cpuMicrosPerEvent - ack.cpuMicrosPerEvent)})`,
    )
  }
  const redis = find('redis', 'busy')
  if (redis) {
    console.log(
      `  ${'redis'.padEnd(7)} acknowledgement ${fmtInt(redis.cpuMicrosPerEvent).padStart(5)} (${(floor.cpuMicrosPerEvent / redis.cpuMicrosPerEvent).toFixed(2)} x floor)` +
        `   and redis-server's own CPU ${fmtInt(redis.redisCpuMicrosPerEvent)} per event`,
    )
  }
}
