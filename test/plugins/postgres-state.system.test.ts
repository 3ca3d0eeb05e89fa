/**
 * The PostgreSQL backend against a PostgreSQL this file starts (initdb into a temporary folder, a free port):
 * the shared state-backend contract, restarts and a second instance over one schema included; a role without
 * superuser rights, a schema from a newer hookpilot, and a server that cannot be reached.
 */
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import type { StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
import { silentLogger } from '../../src/core/log/logger.js'
import { postgresState, postgresStores } from '../../src/plugins/state/postgres/postgres-state.js'
import { SCHEMA_VERSION } from '../../src/plugins/state/postgres/schema.js'
import { rateLimiterContract } from '../../src/testing/rate-limiter.js'
import { newJob, stateBackendContract, type BackendOptions } from '../../src/testing/state-backend.js'
import { usePostgres } from '../fixtures/postgres.js'

const server = usePostgres()

let counter = 0
const schemas = new WeakMap<StateBackend, string>()
const backendIn = (schema: string, options: BackendOptions) => {
  const backend = postgresState({ url: server.url, schema, poolMax: 4, ...options })
  schemas.set(backend, schema)
  return backend
}

stateBackendContract('postgresState', {
  make: (options) => backendIn(`contract${++counter}`, options),
  reopen: (previous, options) => backendIn(schemas.get(previous) ?? '', options),
  peer: (first, options) => backendIn(schemas.get(first) ?? '', options),
})

describe('postgresState: the role, the schema and the server', () => {
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: server.url })
    await client.connect()
    try {
      return await work(client)
    } finally {
      await client.end()
    }
  }
  const options = { concurrency: 1, maxQueue: 10, pollMs: 5 }

  it('runs as a role without superuser rights that owns only its schema (docs/deploy.md)', async () => {
    await admin(async (c) => {
      await c.query('CREATE ROLE limited LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE')
      await c.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC')
      await c.query('CREATE SCHEMA limited_state AUTHORIZATION limited')
    })
    const url = server.url.replace('hookpilot@', 'limited@')
    const state = postgresState({ ...options, url, schema: 'limited_state' })
    await state.start?.({ log: silentLogger })
    try {
      expect(await state.queue.add(newJob('limited'), await state.dedup.reserve('pr\u0000limited'))).toMatchObject({ status: 'accepted' })
      const ran: string[] = []
      state.queue.start(async (job) => {
        ran.push(job.job.deliveryId)
        return { kind: 'done' }
      })
      await expect.poll(async () => (await state.jobs.counts()).done).toBe(1)
      expect(ran).toEqual(['limited'])
    } finally {
      await state.queue.stop(0)
      await state.close?.()
    }
    // It could not have put its tables anywhere else.
    const elsewhere = await admin((c) => c.query(`SELECT table_schema FROM information_schema.tables WHERE table_name = 'jobs' AND table_schema = 'public'`))
    expect(elsewhere.rows).toEqual([])
  })

  it('refuses a schema written by a newer hookpilot, naming the versions and the schema', async () => {
    const first = postgresState({ ...options, url: server.url, schema: 'from_the_future' })
    await first.start?.({ log: silentLogger })
    await first.close?.()
    await admin((c) => c.query(`INSERT INTO from_the_future.migrations (version) VALUES (${SCHEMA_VERSION + 1})`))
    const older = postgresState({ ...options, url: server.url, schema: 'from_the_future' })
    await expect(older.start?.({ log: silentLogger })).rejects.toThrow(`the PostgreSQL schema "from_the_future" is at version ${SCHEMA_VERSION + 1}, written by a newer hookpilot`)
  })

  it('a server that cannot be reached stops the start with a message naming it, never the password', async () => {
    const state = postgresState({ ...options, url: 'postgres://someone:sekrit@127.0.0.1:1/nowhere', schema: 'absent' })
    const failed = await state.start?.({ log: silentLogger }).then(() => undefined, (err: unknown) => err as Error)
    expect(failed?.message).toContain('cannot open the state in PostgreSQL 127.0.0.1:1/nowhere (schema absent)')
    expect(failed?.message).not.toContain('sekrit')
    expect(state.where).not.toContain('sekrit')
  })
})

/** Limiters over schemas of their own, each started before its first hit (the contract makes them synchronously). */
const limiterBackends: StateBackend[] = []
afterAll(async () => {
  for (const backend of limiterBackends.splice(0)) await backend.close?.()
})
rateLimiterContract('postgresLimiter', (now) => {
  const { state, rateLimiter } = postgresStores({ url: server.url, schema: `rate${++counter}`, poolMax: 2, concurrency: 1, maxQueue: 10, rateNow: now })
  limiterBackends.push(state)
  const started = state.start?.({ log: silentLogger, admin: true })
  return {
    hit: async (key, limit) => (await started, rateLimiter.hit(key, limit)),
    book: async (key, limit) => (await started, rateLimiter.book!(key, limit)),
  }
})

describe('postgresStores: what several instances share besides the jobs', () => {
  it('two instances hitting one route at once never count past its limit, on PostgreSQL\'s own clock', async () => {
    const schema = `shared_rate${++counter}`
    const open = async () => {
      const stores = postgresStores({ url: server.url, schema, poolMax: 8, concurrency: 1, maxQueue: 10 })
      await stores.state.start?.({ log: silentLogger, admin: true })
      return stores
    }
    const [a, b] = [await open(), await open()]
    try {
      const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).rateLimiter.hit('pr', 15)))
      expect(decisions.filter((d) => d.ok)).toHaveLength(15)
      for (const refused of decisions.filter((d) => !d.ok)) expect(refused).toMatchObject({ ok: false, retryAfterSeconds: expect.any(Number) })
    } finally {
      await a.state.close?.()
      await b.state.close?.()
    }
  })

  it('subscriptions changed on one instance reach the other at once, and concurrent changes are all kept', async () => {
    const schema = `shared_subs${++counter}`
    const open = async () => {
      const stores = postgresStores({ url: server.url, schema, poolMax: 4, concurrency: 1, maxQueue: 10 })
      await stores.state.start?.({ log: silentLogger, admin: true })
      return stores
    }
    const [a, b] = [await open(), await open()]
    let heard = 0
    const stop = b.subscriptions.watch(() => void heard++)
    try {
      expect(await a.subscriptions.read()).toEqual({ status: 'missing' })
      await expect.poll(() => heard).toBeGreaterThanOrEqual(1) // once listening
      const before = heard
      // Ten commands at once over both instances, each adding a name: none is lost to another.
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).subscriptions.update((file) => ({
        file: { ...file, subscriptions: { ...file.subscriptions, [`sub${i}`]: { secret: 's'.repeat(16), events: ['push'], prompt: 'p', deliver: 'log' } } },
        result: undefined,
      }))))
      const read = await b.subscriptions.read()
      expect(read.status).toBe('ok')
      if (read.status === 'ok') expect(Object.keys(read.file.subscriptions).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `sub${i}`).sort())
      await expect.poll(() => heard).toBeGreaterThan(before)
    } finally {
      stop()
      await a.state.close?.()
      await b.state.close?.()
    }
  })
})

describe('postgresState: connections dropped mid-transaction', () => {
  it('adds whose connection the server ends answer accepted (stored) or throw (nothing stored); the pool recovers, and each stored job runs once', async () => {
    const schema = `dropped${++counter}`
    const state = postgresState({ url: server.url, schema, poolMax: 4, concurrency: 4, maxQueue: 1_000, pollMs: 5 })
    await state.start?.({ log: silentLogger })
    const terminator = new pg.Client({ connectionString: server.url })
    await terminator.connect()
    try {
      let dropping = true
      // Ends every connection of the backend's pool (application_name hookpilot) again and again while adds run.
      const drops = (async () => {
        let ended = 0
        while (dropping) {
          const { rowCount } = await terminator.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'hookpilot' AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%'`,
          )
          ended += rowCount ?? 0
          await new Promise((resolve) => setTimeout(resolve, 3))
        }
        return ended
      })()
      const outcomes = await Promise.all(Array.from({ length: 60 }, async (_, i) => {
        try {
          const added = await state.queue.add(newJob(`drop-${i}`), await state.dedup.reserve(`pr\u0000drop-${i}`))
          return added.status === 'accepted' ? `accepted ${added.id}` : added.status
        } catch {
          return 'refused'
        }
      }))
      dropping = false
      expect(await drops).toBeGreaterThan(0)
      const accepted = outcomes.filter((o) => o.startsWith('accepted')).map((o) => o.slice('accepted '.length))
      // Every add answered accepted is stored; a refused one may have committed before its connection ended (then
      // its redelivery is a duplicate, never a second job): no key is ever held by two jobs.
      const stored = await state.jobs.list()
      for (const id of accepted) expect(stored.map((j) => j.id)).toContain(id)
      expect(new Set(stored.map((j) => j.deliveryId)).size).toBe(stored.length)
      // The pool works again, and the refused deliveries can be sent again.
      for (const [i, outcome] of outcomes.entries()) {
        if (outcome !== 'refused') continue
        const again = await state.queue.add(newJob(`drop-${i}`), await state.dedup.reserve(`pr\u0000drop-${i}`))
        expect(['accepted', 'duplicate']).toContain(again.status)
      }
      const runs = new Map<string, number>()
      state.queue.start(async (job) => {
        runs.set(job.job.deliveryId, (runs.get(job.job.deliveryId) ?? 0) + 1)
        return { kind: 'done' }
      })
      await expect.poll(async () => (await state.jobs.counts()).done, { timeout: 15_000 }).toBe(60)
      expect([...runs.values()].every((n) => n === 1)).toBe(true)
      expect(runs.size).toBe(60)
    } finally {
      await terminator.end()
      await state.queue.stop(0)
      await state.close?.()
    }
  })
})

describe('postgresState: adds in batches (group commit per turn)', () => {
  it('two instances storing the same deliveries in one turn each: every delivery is stored once, the losers answered duplicate, the rest of each batch kept', async () => {
    const schema = `batches${++counter}`
    const options = { url: server.url, schema, poolMax: 4, concurrency: 1, maxQueue: 1_000 }
    const [a, b] = [postgresState(options), postgresState(options)]
    await a.start?.({ log: silentLogger, admin: true })
    await b.start?.({ log: silentLogger, admin: true })
    try {
      // Each instance reserves every key first (none is stored yet, so each answers new), then adds them all in
      // one turn: each batch meets the other's rows at the keys' unique index, and runs again with savepoints.
      const shared = Array.from({ length: 20 }, (_, i) => `race-${i}`)
      const own = (who: string) => Array.from({ length: 10 }, (_, i) => `${who}-${i}`)
      const reserveAll = (state: StateBackend, ids: string[]) => Promise.all(ids.map((id) => state.dedup.reserve(`pr\u0000${id}`)))
      const idsA = [...shared, ...own('a')]
      const idsB = [...shared, ...own('b')]
      const [reservedA, reservedB] = await Promise.all([reserveAll(a, idsA), reserveAll(b, idsB)])
      const [addedA, addedB] = await Promise.all([
        Promise.all(idsA.map((id, i) => a.queue.add(newJob(id), reservedA[i]))),
        Promise.all(idsB.map((id, i) => b.queue.add(newJob(id), reservedB[i]))),
      ])
      const statuses = (added: typeof addedA, from: number, to: number) => added.slice(from, to).map((r) => r.status)
      // Each instance's own deliveries are stored whatever became of the shared ones in its batch.
      expect(statuses(addedA, 20, 30).every((s) => s === 'accepted')).toBe(true)
      expect(statuses(addedB, 20, 30).every((s) => s === 'accepted')).toBe(true)
      for (let i = 0; i < 20; i++) {
        expect([addedA[i]!.status, addedB[i]!.status].sort()).toEqual(['accepted', 'duplicate'])
      }
      const stored = await a.jobs.list()
      expect(stored).toHaveLength(40)
      expect(new Set(stored.map((j) => j.deliveryId)).size).toBe(40)
      // The queued count the batches kept is the table's.
      expect((await a.jobs.counts()).queued).toBe(40)
      const client = new pg.Client({ connectionString: server.url })
      await client.connect()
      const { rows } = await client.query<{ n: string }>(`SELECT n FROM "${schema}".counts WHERE name = 'queued'`).finally(() => client.end())
      expect(Number(rows[0]?.n)).toBe(40)
    } finally {
      await a.close?.()
      await b.close?.()
    }
  })
})

describe('postgresState: LISTEN/NOTIFY', () => {
  it('a job another instance stores is run at once by an instance whose poll would wait a minute (woken by NOTIFY)', async () => {
    const schema = `notify${++counter}`
    const options = { url: server.url, schema, poolMax: 2, concurrency: 1, maxQueue: 10 }
    const worker = postgresState({ ...options, pollMs: 60_000 })
    const adder = postgresState({ ...options, pollMs: 60_000 })
    await worker.start?.({ log: silentLogger })
    await adder.start?.({ log: silentLogger, admin: true })
    try {
      const ran: string[] = []
      worker.queue.start(async (job) => {
        ran.push(job.job.deliveryId)
        return { kind: 'done' }
      })
      // Its first lease round has found nothing; the next look by poll would be a minute away.
      await new Promise((resolve) => setTimeout(resolve, 200))
      const began = Date.now()
      await adder.queue.add(newJob('woken'), await adder.dedup.reserve('pr\u0000woken'))
      await expect.poll(() => ran, { timeout: 5_000, interval: 10 }).toEqual(['woken'])
      expect(Date.now() - began).toBeLessThan(5_000)
    } finally {
      await worker.queue.stop(0)
      await worker.close?.()
      await adder.close?.()
    }
  })
})
