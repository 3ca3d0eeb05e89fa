/**
 * The bench's own PostgreSQL for the `postgres` and `postgres-floor` rows of bench/handle-cost.js: `initdb` into a
 * folder of the run's temporary folder and `postgres` on a free port bound to 127.0.0.1, with its defaults for
 * durability (fsync on, synchronous_commit on: a 202 after a commit that a power loss keeps). Never the machine's
 * own server (5432 is left alone); run as the `postgres` user when the bench runs as root (PostgreSQL refuses
 * root); killed with the other children on every way out. It reports its own CPU time (its processes' in /proc).
 */
import { spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import os from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { spawnTracked } from './procs.js'

/** How to get PostgreSQL, printed when it is missing. */
export const INSTALL_HINT = 'install it (Debian/Ubuntu: apt-get install -y postgresql; macOS: brew install postgresql) and run the bench again'

/** The folder holding `initdb` and `postgres`: on PATH, else Debian's /usr/lib/postgresql/<version>/bin. */
export function postgresBin() {
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres'))) return dir
  const debian = '/usr/lib/postgresql'
  if (!existsSync(debian)) return undefined
  const version = readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))[0]
  return version === undefined ? undefined : join(debian, version, 'bin')
}

/**
 * Starts the bench's PostgreSQL in a temporary folder of its own (the run's is private to this user, which the
 * `postgres` user could not enter); resolves once it answers. `stop` ends it and removes the folder.
 */
export async function startPostgres() {
  const bin = postgresBin()
  if (!bin) throw new Error(`PostgreSQL is not installed: ${INSTALL_HINT}`)
  const dir = mkdtempSync(join(os.tmpdir(), 'hookpilot-bench-pg-'))
  const user = os.userInfo().uid === 0 ? { uid: idOf('-u'), gid: idOf('-g') } : {}
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid)
  const data = join(dir, 'data')
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'bench', '--auth=trust', '-E', 'UTF8', '--no-instructions'], { encoding: 'utf8', ...user })
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`)
  const port = await freePort()
  const child = spawnTracked(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'], { stdio: 'ignore', ...user })
  const url = `postgres://bench@127.0.0.1:${port}/postgres`
  for (const until = Date.now() + 30_000; ;) {
    const probe = new pg.Client({ connectionString: url })
    probe.on('error', () => {})
    try {
      await probe.connect()
      await probe.end()
      break
    } catch {
      if (Date.now() > until || child.exitCode !== null) throw new Error('the bench PostgreSQL did not start')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return {
    url,
    /** The server's user+system CPU time so far, in µs: the postmaster and every process it forked. */
    cpuMicros() {
      const tick = 1e6 / 100 // USER_HZ is 100 on Linux
      let total = 0
      for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
          if (Number(entry) !== child.pid && Number(fields[1]) !== child.pid) continue
          total += (Number(fields[11]) + Number(fields[12])) * tick
        } catch {
          // ended meanwhile
        }
      }
      return Math.round(total)
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGQUIT')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function idOf(flag) {
  return Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim())
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}
