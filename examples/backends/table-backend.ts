/**
 * A state backend of your own, built on `hookpilot/backend-kit`: one SQL table (SQLite here, through
 * better-sqlite3, so it runs anywhere; the same statements fit PostgreSQL, see docs/plugins.md). It implements
 * the kit's store and nothing else: the primitives of one atomic write (`JobTransaction`) and of a lease
 * (`LeaseTable`). Every rule of a job's life and the order they apply in (an add, a retry, a purge) is the
 * kit's (`addJob`, `retryJob`, `purgeJobs`), and so are the worker pool with its leases and fencing
 * (`jobPool`), the reservation book, and what a crash leaves behind (`crashRecovery`: which leases go back,
 * which process groups are killed). test/e2e/example-backend.test.ts runs the shipped contract against it.
 */
import Database from 'better-sqlite3'
import {
  addJob, checkedRetention, crashRecovery, dedupKeyOf, jobMatcher, jobPool, leased, purgeJobs, reservationBook, retryJob,
  type JobRecord, type JobStore, type JobTransaction, type LeaseTable, type StateBackend,
} from 'hookpilot/backend-kit'

const SCHEMA = `CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY, dedup_key TEXT UNIQUE, record TEXT NOT NULL, payload TEXT NOT NULL, state TEXT NOT NULL,
  not_before INTEGER NOT NULL, token TEXT, lease_until INTEGER, owner TEXT, processes TEXT, grp TEXT)`

/** The lifecycle's \`leasable\` as SQL: due, and no job of its concurrency group running. */
const FREE = 'q.state = \'queued\' AND (q.grp IS NULL OR NOT EXISTS (SELECT 1 FROM jobs r WHERE r.grp = q.grp AND r.state = \'running\'))'

/** Options of {@link tableBackend}. */
export interface TableBackendOptions {
  readonly path: string
  readonly concurrency: number
  readonly maxQueue: number
  readonly now?: (() => number) | undefined
  readonly dedupWindowMs?: number | undefined
  readonly keepDoneMs?: number | undefined
  readonly pollMs?: number | undefined
}

/** A durable backend over one table. */
export function tableBackend(options: TableBackendOptions): StateBackend {
  const now = options.now ?? Date.now
  const retention = checkedRetention({ windowMs: options.dedupWindowMs, keepDoneMs: options.keepDoneMs })
  const db = new Database(options.path)
  db.pragma('journal_mode = WAL')
  db.exec(SCHEMA)
  const book = reservationBook()
  const leaseMs = 30_000

  const crash = crashRecovery()

  const row = (where: string) => db.prepare<unknown[], { record: string; payload: string }>(`SELECT record, payload FROM jobs WHERE ${where}`)
  const byKey = row('dedup_key = ?')
  const byId = row('id = ?')
  const byLease = row('id = ? AND token = ? AND state = \'running\'')
  const parse = (found: { record: string } | undefined): JobRecord | undefined => (found ? (JSON.parse(found.record) as JobRecord) : undefined)
  const records = (sql: string, ...params: unknown[]) =>
    db.prepare<unknown[], { record: string }>(sql).all(...params).map((r) => JSON.parse(r.record) as JobRecord)
  const count = (state: string) => db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM jobs WHERE state = ?').get(state)?.n ?? 0
  /** Writes a record (and the columns the queries need) back to its row, ending its lease unless one is given. */
  const write = db.prepare(`UPDATE jobs SET record = @record, state = @state, not_before = @notBefore, dedup_key = @key, token = @token,
    lease_until = @until, owner = @owner, processes = CASE WHEN @token IS NULL THEN NULL ELSE processes END, grp = @grp WHERE id = @id`)
  const store = (job: JobRecord, lease?: { token: string; until: number }) => write.run({
    record: JSON.stringify(job), state: job.state, notBefore: job.notBefore, key: job.dedupKey ?? null, token: lease?.token ?? null,
    until: lease?.until ?? null, owner: lease ? crash.owner : null, grp: job.group ?? null, id: Number(job.id),
  })
  /** A running job's record written under the lease it already has (a newer job of its group outdated it). */
  const keepLease = db.prepare<[string, number]>('UPDATE jobs SET record = ? WHERE id = ?')

  /** The primitives of one atomic write: the kit decides every record, this only reads and writes rows. */
  const tx: JobTransaction<string> = {
    get: (id) => parse(byId.get(Number(id))),
    put: (job) => (job.state === 'running' ? keepLease.run(JSON.stringify(job), Number(job.id)) : store(job)),
    insert(job, payload) {
      const id = String(db.prepare('INSERT INTO jobs (dedup_key, record, payload, state, not_before) VALUES (?, \'{}\', ?, \'queued\', 0)')
        .run(job.dedupKey ?? null, payload).lastInsertRowid)
      store({ ...job, id })
      return id
    },
    holder: (key) => parse(byKey.get(key)),
    members: (group) => records('SELECT record FROM jobs WHERE grp = ? AND state IN (\'queued\', \'running\')', group),
    newest: (group) => records('SELECT record FROM jobs WHERE grp = ?', group).sort((a, b) => b.receivedAt - a.receivedAt)[0],
    queued: () => count('queued'),
    // The turns a new job takes its own from (the kit's fair turns, a route's fair_by). A real table keeps turn and
    // fair key in columns of their own, with an index on each (docs/plugins.md); the record's JSON suffices here.
    turns: (fairKey) => {
      const turn = 'coalesce(json_extract(record, \'$.turn\'), 0)'
      const seen = db.prepare<[string | null], { first: number | null; running: number | null; key: number | null }>(`SELECT
        (SELECT min(${turn}) FROM jobs WHERE state = 'queued') AS first, (SELECT max(${turn}) FROM jobs WHERE state = 'running') AS running,
        (SELECT max(${turn}) FROM jobs WHERE state = 'queued' AND json_extract(record, '$.fairKey') = ?) AS key`).get(fairKey ?? null)
      return { firstQueued: seen?.first ?? undefined, lastRunning: seen?.running ?? undefined, lastOfKey: seen?.key ?? undefined }
    },
    purge: (cutoff) => db.prepare<[number, number]>(
      `DELETE FROM jobs WHERE (state IN ('done', 'skipped', 'superseded') AND json_extract(record, '$.finishedAt') < ?)
        OR (state = 'failed' AND json_extract(record, '$.finishedAt') < ?)`,
    ).run(cutoff.doneBefore, cutoff.failedBefore).changes,
  }
  const jobStore: JobStore<string> = {
    prepare: (job) => job.payloadJson,
    transaction: async (work) => db.transaction(() => work(tx)).immediate(),
  }

  /** The primitives of a lease, which the kit's worker pool runs tries over. */
  const table: LeaseTable = {
    lease: async (max, t, until) => db.transaction(() => {
      const groups = new Set<string>() // one job of a group per round
      return db.prepare<[number, number], { record: string; payload: string }>(`SELECT record, payload FROM jobs q WHERE ${FREE} AND not_before <= ?
        ORDER BY coalesce(json_extract(record, '$.turn'), 0), not_before, id LIMIT ?`)
        .all(t, max)
        .flatMap((found) => {
          const job = leased(JSON.parse(found.record) as JobRecord, t)
          if (job.group !== undefined && groups.has(job.group)) return []
          if (job.group !== undefined) groups.add(job.group)
          const token = crash.token()
          store(job, { token, until })
          return [{ job, token, payload: JSON.parse(found.payload) }]
        })
    })(),
    update: async (id, token, change, after) => db.transaction(() => {
      const current = parse(byLease.get(Number(id), token))
      if (!current) return undefined // the lease is another's now: write nothing
      const next = change(current)
      store(next, after === 'release' || next.state !== 'running' ? undefined : { token, until: after.until })
      return next
    })(),
    renew: async (held, until) => {
      const renew = db.prepare<[number, number, string]>('UPDATE jobs SET lease_until = ? WHERE id = ? AND token = ?')
      return new Set([...held].filter(([id, token]) => renew.run(until, Number(id), token).changes > 0).map(([id]) => id))
    },
    // Kept for the kit's crash recovery at the next start, which kills the group if this process died.
    recordProcess: (id, token, process) => {
      db.prepare('UPDATE jobs SET processes = json_insert(coalesce(processes, \'[]\'), \'$[#]\', json(?)) WHERE id = ? AND token = ?')
        .run(JSON.stringify(process), Number(id), token)
    },
    nextDue: () => db.prepare<[], { at: number | null }>(`SELECT min(not_before) AS at FROM jobs q WHERE ${FREE}`).get()?.at ?? undefined,
    unfinished: () => count('queued') + count('running'),
  }
  const pool = jobPool(table, { concurrency: options.concurrency, now, log: () => log, pollMs: options.pollMs, leaseMs })
  let log: Parameters<NonNullable<StateBackend['start']>>[0]['log'] = { debug() {}, info() {}, warn() {}, error() {} }

  return {
    name: 'table',
    durable: true,
    dedup: { reserve: (key) => book.reserve(key, () => parse(byKey.get(key)), retention.windowMs, now) },
    queue: {
      add: (job, reservation) => addJob(jobStore, job, reservation, { maxQueue: options.maxQueue, windowMs: retention.windowMs, now, book, pool }),
      start: (worker) => pool.start(worker),
      stop: (graceMs) => pool.stop(graceMs),
    },
    jobs: {
      async list(filter = {}) {
        // A row at a time, newest first from the cursor on, until the page is full: never the whole table at once.
        const matches = jobMatcher(filter)
        const before = filter.before === undefined ? Number.MAX_SAFE_INTEGER : Number(filter.before) || 0
        const rows = db.prepare<[number], { record: string }>('SELECT record FROM jobs WHERE id < ? ORDER BY id DESC').iterate(before)
        const kept: JobRecord[] = []
        for (const row of rows) {
          if (kept.length >= (filter.limit ?? Infinity)) break
          const job = JSON.parse(row.record) as JobRecord
          if (matches(job)) kept.push(job)
        }
        return kept
      },
      get: async (id) => parse(byId.get(Number(id))),
      // The delivery's job holds its de-dup key: the unique column's index finds it.
      find: async (route, deliveryId) => parse(byKey.get(dedupKeyOf(route, deliveryId))),
      retry: (id, mode = 'resume') => retryJob(jobStore, id, mode, now, pool),
      purge: (before) => purgeJobs(jobStore, before, now(), retention.windowMs),
      counts: async () => ({
        queued: count('queued'), running: count('running'), done: count('done'), failed: count('failed'), skipped: count('skipped'), superseded: count('superseded'),
      }),
    },
    async start(ctx) {
      log = ctx.log
      if (ctx.admin) return
      // Jobs a crashed process left running: the kit decides which go back (their owner is dead, or their lease
      // ran out), kills the process groups they left, and ends superseded those a newer job of their group outdated.
      const held = db.prepare<[], { record: string; owner: string | null; lease_until: number | null; processes: string | null }>(
        'SELECT record, owner, lease_until, processes FROM jobs WHERE state = \'running\'',
      ).all().map((found) => ({ job: JSON.parse(found.record) as JobRecord, owner: found.owner, leaseUntil: found.lease_until, processes: found.processes }))
      const back = db.transaction(() => crash.recover(held, store, now())).immediate()
      pool.ended(back.ended)
    },
    async close() {
      db.close()
    },
  }
}
