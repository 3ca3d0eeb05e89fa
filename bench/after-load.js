/**
 * What run.js measures once the servers are stopped, each in a process of its own: what the sqlite files
 * hold, the memory backend's heap for its de-dup window (dedup-memory.js), and CPU per event without sockets
 * (handle-cost.js): the acknowledgement alone, and each event's whole life with the echo agent.
 */
import Database from 'better-sqlite3'
import { statSync } from 'node:fs'
import { start } from './procs.js'

/** Jobs and bytes in a sqlite server's file, read after the server closed it. */
export function stateFile(kind, file) {
  try {
    const db = new Database(file, { readonly: true })
    try {
      const states = Object.fromEntries(db.prepare('SELECT state, count(*) AS n FROM jobs GROUP BY state').all().map((r) => [r.state, r.n]))
      const { jobs } = db.prepare('SELECT count(*) AS jobs FROM jobs').get()
      // Payloads as stored: compressed (brotli) or, in rows copied from an older file, JSON text.
      const { payloadBytes } = db.prepare('SELECT coalesce(sum(coalesce(length(brotli), length(json))), 0) AS payloadBytes FROM payloads').get()
      const size = (f) => { try { return statSync(f).size } catch { return 0 } }
      return { server: kind, jobs, states, payloadBytes, bytes: size(file) + size(`${file}-wal`) }
    } finally {
      db.close()
    }
  } catch (err) {
    return { server: kind, error: err instanceof Error ? err.message : String(err) }
  }
}

/** Runs `bench/<script>` and resolves the JSON of its last line on `stream` (stdout or stderr). */
async function lastJsonLine(script, args, { execArgv = [], stream }) {
  const child = start(script, args, { execArgv, stdout: stream === 'stdout' ? 'pipe' : 'ignore', stderr: stream === 'stderr' ? 'pipe' : 'inherit' })
  let out = ''
  child[stream].setEncoding('utf8').on('data', (chunk) => (out += chunk))
  const code = await new Promise((done) => child.once('exit', (c, s) => done(c ?? s)))
  if (code !== 0) throw new Error(`${script} ${args.join(' ')} exited with ${code}: ${out.trim().split('\n').at(-1) ?? ''}`)
  return JSON.parse(out.trim().split('\n').at(-1))
}

/** The memory backend's heap with `jobs` finished jobs. */
export function measureHeap(jobs) {
  return lastJsonLine('dedup-memory.js', [String(jobs)], { execArgv: ['--expose-gc'], stream: 'stdout' })
}

/**
 * CPU per event through gateway.handle(): floor, then each backend with its agents busy and with echo; with
 * `redis`, also the redis backend's acknowledgement (a redis-server of its own; its CPU reported beside).
 */
export async function measureHandleCost(seconds, connections, { redis = false } = {}) {
  const runs = [['floor', 'busy'], ['sqlite', 'busy'], ['sqlite', 'echo'], ['memory', 'busy'], ['memory', 'echo'], ...(redis ? [['redis', 'busy']] : [])]
  const out = []
  for (const [kind, agent] of runs) {
    out.push(await lastJsonLine('handle-cost.js', [kind, String(seconds), String(connections), agent], { stream: 'stderr' }))
  }
  return out
}
