/**
 * The bench's own Redis for the `redis` and `redis-2` rows: a `redis-server` on a free port, bound to
 * 127.0.0.1, in a folder of the run's temporary folder, with the settings docs/scaling.md asks for
 * (append-only file on, `appendfsync everysec` as Redis defaults it, no RDB snapshots, `noeviction`). It is
 * never the machine's own Redis (6379 is left alone), and it is killed with the other children on every way
 * out. Besides the URL it reports its own CPU time and command counts (INFO), so the bench can say what Redis
 * did per accepted request.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { ask, spawnTracked, start } from './procs.js'

/** How to get redis-server, printed when it is missing. */
export const INSTALL_HINT = 'install it (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis) and run the bench again'

/** Whether `redis-server` can be run here. */
export function redisAvailable() {
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' })
  return !probe.error && probe.status === 0
}

/** Starts the bench's Redis in `dir`; resolves once it answers PING. */
export async function startRedis(dir) {
  mkdirSync(dir, { recursive: true })
  const port = await freePort()
  const child = spawnTracked('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
    '--appendonly', 'yes', '--save', '', '--maxmemory-policy', 'noeviction',
  ], { stdio: ['ignore', 'ignore', 'inherit'] })
  // If the bench is killed without cleaning up, the reaper's IPC channel closes and it kills this redis-server.
  const reaper = start('reaper.js', [String(child.pid)])
  await ask(reaper, undefined, 'ready', 10_000)
  const url = `redis://127.0.0.1:${port}`
  const client = await connected(port, child)
  const info = async (section) => {
    const text = await client.info(section)
    return Object.fromEntries(text.split('\r\n').filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]))
  }
  const version = `Redis ${(await info('server')).redis_version}`
  return {
    url,
    port,
    version,
    pid: child.pid,
    /** redis-server's user+system CPU time so far, in µs: all its threads, and its children (an AOF rewrite) once ended. */
    async cpuMicros() {
      const cpu = await info('cpu')
      const seconds = ['used_cpu_user', 'used_cpu_sys', 'used_cpu_user_children', 'used_cpu_sys_children'].reduce((sum, k) => sum + Number(cpu[k] ?? 0), 0)
      return Math.round(seconds * 1e6)
    },
    /** Calls per command so far (`INFO commandstats`; commands a Lua script runs are counted too). */
    async commandCalls() {
      const stats = await info('commandstats')
      const calls = {}
      for (const [key, value] of Object.entries(stats)) {
        const match = /calls=(\d+)/.exec(value)
        if (key.startsWith('cmdstat_') && match) calls[key.slice('cmdstat_'.length)] = Number(match[1])
      }
      return calls
    },
    /** Memory, and how many jobs each prefix's sequence handed out. */
    async footprint(prefixes) {
      const memory = await info('memory')
      const jobs = {}
      for (const prefix of prefixes) jobs[prefix] = Number((await client.get(`${prefix}:seq`)) ?? 0)
      return { usedMemory: Number(memory.used_memory), jobs }
    },
    /** The append-only files' size (after `stop`, once Redis has written all of it). */
    aofBytes: () => dirBytes(join(dir, 'appendonlydir')),
    /** Stops it (SIGTERM: it finishes its append-only file) and waits for it to exit, at most 10 s. */
    async stop() {
      client.disconnect()
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((done) => child.once('exit', done))
        child.kill('SIGTERM')
        let timer
        await Promise.race([exited, new Promise((done) => (timer = setTimeout(done, 10_000)))])
        clearTimeout(timer)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      }
      if (reaper.connected) reaper.send({ type: 'stop' }, () => {})
    },
  }
}

function dirBytes(dir) {
  try {
    return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0)
  } catch {
    return NaN
  }
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}

/** A client of the new server, once it answers PING (10 s at most). */
async function connected(port, child) {
  const until = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`redis-server on port ${port} exited (${child.exitCode ?? child.signalCode}) at start`)
    const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    client.on('error', () => {})
    try {
      await client.connect()
      if ((await client.ping()) === 'PONG') return client
    } catch {
      client.disconnect()
      if (Date.now() > until) throw new Error(`redis-server on port ${port} did not answer within 10 s`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}
