/**
 * The SQLite backend on real files: the state-backend contract (restarts included), and what a user can get
 * wrong about state.path, each refused with a message that names it; accepts on their way when it closes.
 */
import { spawn } from 'node:child_process'
import Database from 'better-sqlite3'
import { chmod, mkdir, mkdtemp, stat, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
import { silentLogger } from '../../src/core/log/logger.js'
import { sqliteState } from '../../src/plugins/state/sqlite/sqlite-state.js'
import { SCHEMA_VERSION } from '../../src/plugins/state/sqlite/schema.js'
import { decodePayload, type PayloadRow } from '../../src/plugins/state/sqlite/payload-codec.js'
import { newJob, stateBackendContract, type BackendOptions } from '../../src/testing/state-backend.js'

const paths = new WeakMap<StateBackend, string>()
let counter = 0
const folder = await mkdtemp(join(tmpdir(), 'hookpilot-sqlite-'))
const backendAt = (path: string, options: BackendOptions) => {
  const backend = sqliteState({ ...options, path })
  paths.set(backend, path)
  return backend
}

stateBackendContract('sqliteState', {
  make: (options) => backendAt(join(folder, `state-${++counter}.db`), options),
  reopen: (previous, options) => backendAt(paths.get(previous) ?? '', options),
  peer: (first, options) => backendAt(paths.get(first) ?? '', options),
})

const start = async (path: string) => {
  const state = sqliteState({ path, concurrency: 1, maxQueue: 1000 })
  await state.start?.({ log: silentLogger })
  return state
}

describe('sqliteState: state.path problems are clear and name the file', () => {
  it('creates the folder of a new file', async () => {
    const state = await start(join(folder, 'deep', 'er', 'state.db'))
    expect((await state.jobs.counts()).queued).toBe(0)
    await state.close?.()
  })

  it('creates a new file, and its WAL, readable by this user only (it holds payloads and answers)', async () => {
    const path = join(folder, 'private', 'state.db')
    const state = await start(path)
    await state.queue.add(newJob('private'))
    expect((await stat(path)).mode & 0o777).toBe(0o600)
    expect((await stat(`${path}-wal`)).mode & 0o777).toBe(0o600)
    await state.close?.()
  })

  it('two processes starting together on a new file both open it (each migration step runs once)', async () => {
    const dist = new URL('../../dist/plugins/state/sqlite/sqlite-state.js', import.meta.url).href
    const script = `const { sqliteState } = await import(${JSON.stringify(dist)})
      const state = sqliteState({ path: process.argv[1], concurrency: 1, maxQueue: 10 })
      const log = { debug() {}, info() {}, warn() {}, error() {} }
      await state.start({ log })
      await state.close()
      console.log('opened')`
    const open = (path: string) => new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, path], { stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      child.stdout.on('data', (d: Buffer) => (out += d.toString()))
      child.stderr.on('data', (d: Buffer) => (out += d.toString()))
      child.on('close', (code) => resolve({ code, out }))
    })
    for (let round = 0; round < 6; round++) {
      const path = join(folder, `together-${round}`, 'state.db')
      const both = await Promise.all([open(path), open(path)])
      for (const { code, out } of both) expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'opened' })
    }
  })

  it('refuses a file that is not a database', async () => {
    const path = join(folder, 'not-a-db.db')
    await writeFile(path, 'this is a text file, not SQLite '.repeat(200))
    await expect(start(path)).rejects.toThrow(`state.path ${path}: the file is not a SQLite database`)
  })

  it('refuses a folder it cannot write', async () => {
    if (process.getuid?.() === 0) {
      // root writes anywhere: a path under a regular file is the unwritable case that holds for everyone.
      const file = join(folder, 'a-file')
      await writeFile(file, '')
      await expect(start(join(file, 'state.db'))).rejects.toThrow(/state\.path .*a-file\/state\.db: cannot create its folder/)
      return
    }
    const locked = join(folder, 'locked')
    await mkdir(locked)
    await chmod(locked, 0o500)
    await expect(start(join(locked, 'state.db'))).rejects.toThrow(/state\.path .*: (cannot open it|no permission)/)
  })

  it('refuses a database written by a newer hookpilot, and migrates nothing', async () => {
    const path = join(folder, 'newer.db')
    const db = new Database(path)
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`)
    db.close()
    await expect(start(path)).rejects.toThrow(`written by a newer hookpilot (schema version ${SCHEMA_VERSION + 1}`)
  })

  it('keeps the schema version in the file', async () => {
    const path = join(folder, 'versioned.db')
    const state = await start(path)
    await state.close?.()
    const db = new Database(path, { readonly: true })
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    db.close()
  })
})

describe('sqliteState: group commit', () => {
  it('stores requests that arrive together in one transaction, each answered after it committed', async () => {
    const path = join(folder, 'group.db')
    const state = await start(path)
    const before = new Database(path, { readonly: true })
    const results = await Promise.all(Array.from({ length: 50 }, async (_, i) => {
      const id = `g${i}`
      return state.queue.add(newJob(id), await state.dedup.reserve(`pr\u0000${id}`))
    }))
    expect(results.every((r) => r.status === 'accepted')).toBe(true)
    // Another connection sees all of them as soon as the adds resolved: they were committed first.
    expect(before.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 50 })
    before.close()
    await state.close?.()
  })

  it('a write that fails to commit rejects its callers (the request is answered 503, never 202)', async () => {
    const path = join(folder, 'broken.db')
    const state = await start(path)
    const db = new Database(path)
    db.exec('CREATE TRIGGER refuse BEFORE INSERT ON jobs BEGIN SELECT RAISE(ABORT, \'disk says no\'); END')
    db.close()
    await expect(state.queue.add(newJob('refused'), await state.dedup.reserve('pr\u0000refused'))).rejects.toThrow('disk says no')
    expect((await state.dedup.reserve('pr\u0000refused')).status).toBe('new') // the key was given back
    await state.close?.()
  })
})

describe('sqliteState: leases of other processes', () => {
  it('a live lease of an owner in another pid namespace (a container sharing the file) is left alone until it runs out', async () => {
    const path = join(folder, 'foreign.db')
    let t = Date.UTC(2026, 0, 1)
    const a = sqliteState({ path, concurrency: 1, maxQueue: 10, leaseMs: 30_000, now: () => t })
    await a.start?.({ log: silentLogger })
    await a.queue.add(newJob('c-1'), await a.dedup.reserve('pr\u0000c-1'))
    await a.queue.add(newJob('c-2'), await a.dedup.reserve('pr\u0000c-2'))
    await a.close?.()
    // As another container would have left it: running, leased for 30 s, by a process of another pid namespace that has this process's pid.
    const db = new Database(path)
    // This host and boot, another pid namespace: its pids are not this namespace's.
    const foreign = JSON.stringify([hostname(), readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), 'pid:[4026531999]', process.pid, 'other'])
    const lease = db.prepare('UPDATE jobs SET state = \'running\', owner = ?, lease_until = ?, processes = ? WHERE id = ?')
    lease.run(foreign, t + 30_000, JSON.stringify([{ pid: process.pid, start: 'never-matches' }]), 1)
    // And one written as host:pid:token, this process's pid: no namespace to compare, so only its lease tells.
    lease.run(`${hostname()}:${process.pid}:other`, t + 30_000, null, 2)
    db.close()
    const b = sqliteState({ path, concurrency: 1, maxQueue: 10, leaseMs: 30_000, now: () => t })
    await b.start?.({ log: silentLogger })
    expect([(await b.jobs.get('1'))?.state, (await b.jobs.get('2'))?.state]).toEqual(['running', 'running'])
    await b.close?.()
    t += 30_001
    const c = sqliteState({ path, concurrency: 1, maxQueue: 10, leaseMs: 30_000, now: () => t })
    await c.start?.({ log: silentLogger })
    // Their leases ran out: taken back, nothing killed here.
    expect([(await c.jobs.get('1'))?.state, (await c.jobs.get('2'))?.state]).toEqual(['queued', 'queued'])
    await c.close?.()
  })
})

describe('sqliteState: payloads compressed on a thread of their own', () => {
  it('close() with accepts on their way (payloads on the compression thread): each is stored, in the order made, before the file closes', async () => {
    const path = join(folder, 'closing.db')
    const state = await start(path)
    const ids = Array.from({ length: 40 }, (_, i) => `delivery-${String(i).padStart(2, '0')}`)
    // Two turns of accepts: the first batch reaches the compression thread, the second is still this turn's
    // when close() starts.
    const first = ids.slice(0, 20).map((id) => state.queue.add(newJob(id), undefined))
    await new Promise((resolve) => setImmediate(resolve))
    const second = ids.slice(20).map((id) => state.queue.add(newJob(id), undefined))
    await state.close?.()
    const answers = await Promise.all([...first, ...second])
    expect(answers.map((a) => a.status)).toEqual(ids.map(() => 'accepted'))

    const again = await start(path)
    const stored = await again.jobs.list({ limit: 100 })
    await again.close?.()
    // Newest first: the reverse of the order the accepts were made, ids rising with it.
    expect(stored.map((job) => job.deliveryId)).toEqual([...ids].reverse())
    const numeric = stored.map((job) => Number(job.id))
    expect(numeric).toEqual([...numeric].sort((a, b) => b - a))
    const db = new Database(path, { readonly: true })
    const rows = db.prepare<[], PayloadRow & { delivery_id: string }>('SELECT delivery_id, json, brotli FROM jobs JOIN payloads ON job_id = id').all()
    db.close()
    expect(rows).toHaveLength(ids.length)
    for (const row of rows) expect(decodePayload(row)).toEqual(newJob(row.delivery_id).payload)
  })
})
