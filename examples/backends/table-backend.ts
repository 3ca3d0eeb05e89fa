/**
 * A state backend of your own, built on `hookpilot/backend-kit`: one SQL table (SQLite here, through
 * better-sqlite3, so it runs anywhere; the same statements fit PostgreSQL, see docs/plugins.md). It stores rows
 * and nothing else: what every edge of a job's life does is the kit's (`admit`, `accepted`, `leased`,
 * `recovered`, `retried`, `purgeCutoff`), the worker pool with its leases and fencing is the kit's (`jobPool`),
 * and so is the reservation book. test/e2e/example-backend.test.ts runs the shipped contract against it.
 */
import { randomUUID } from 'node:crypto'
import Database from 'better-sqlite3'
import {
  accepted, admit, checkedRetention, dedupKeyOf, jobMatcher, jobPool, joinGroup, keyMoved, leased, purgeCutoff, queuedAgain, recovered, refusal, reservationBook,
  retriedAs,
  type AddResult, type JobGroup, type JobRecord, type LeaseTable, type StateBackend,
} from 'hookpilot/backend-kit'

const SCHEMA = `CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY, dedup_key TEXT UNIQUE, record TEXT NOT NULL, payload TEXT NOT NULL,
  state TEXT NOT NULL, not_before INTEGER NOT NULL, token TEXT, lease_until INTEGER, grp TEXT)`

/** The lifecycle's \`leasable\` as SQL: due, and no job of its concurrency group running. */
const FREE = 'q.state = \'queued\' AND (q.grp IS NULL OR NOT EXISTS (SELECT 1 FROM jobs r WHERE r.grp = q.grp AND r.state = \'running\'))'

/** Options of {@link tableBackend}. */
export interface TableBackendOptions {
  readonly path: string
  readonly concurrency: number
  readonly maxQueue: number
  readonly now?: () => number
  readonly dedupWindowMs?: number
  readonly keepDoneMs?: number
  readonly pollMs?: number
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

  const row = (where: string) => db.prepare<unknown[], { record: string; payload: string }>(`SELECT record, payload FROM jobs WHERE ${where}`)
  const byKey = row('dedup_key = ?')
  const byId = row('id = ?')
  const byLease = row('id = ? AND token = ? AND state = \'running\'')
  /** Writes a record (and the columns the queries need) back to its row. */
  const write = db.prepare<[string, string, number, string | null, number | null, string | null, number]>(
    'UPDATE jobs SET record = ?, state = ?, not_before = ?, token = ?, lease_until = ?, grp = ? WHERE id = ?',
  )
  const store = (job: JobRecord, lease?: { token: string; until: number }) =>
    write.run(JSON.stringify(job), job.state, job.notBefore, lease?.token ?? null, lease?.until ?? null, job.group ?? null, Number(job.id))
  /** A running job's record written under the lease it already has (a newer job of its group outdated it). */
  const keepLease = db.prepare<[string, number]>('UPDATE jobs SET record = ? WHERE id = ?')
  const records = (sql: string, ...params: unknown[]) =>
    db.prepare<unknown[], { record: string }>(sql).all(...params).map((r) => JSON.parse(r.record) as JobRecord)

  /** The job just stored joins its concurrency group (the kit's joinGroup), in the same transaction. */
  function join(job: JobRecord, group: JobGroup | undefined, requeued: boolean): AddResult {
    if (!group) {
      store(job)
      return { status: 'accepted', id: job.id }
    }
    const members = records('SELECT record FROM jobs WHERE grp = ? AND state IN (\'queued\', \'running\') AND id != ?', group.key, Number(job.id))
    const newest = requeued
      ? records('SELECT record FROM jobs WHERE grp = ?', group.key).sort((a, b) => b.receivedAt - a.receivedAt)[0]
      : undefined
    const joined = joinGroup(job, group, members, now(), newest)
    store(joined.job)
    for (const other of joined.others) {
      if (other.state === 'running') {
        keepLease.run(JSON.stringify(other), Number(other.id))
        pool.supersede(other.id, job.id) // run here: its try learns it now (one of another process, at its next write)
      } else {
        store(other)
      }
    }
    return { status: 'accepted', id: job.id, superseded: joined.superseded }
  }
  const parse = (found: { record: string } | undefined): JobRecord | undefined => (found ? (JSON.parse(found.record) as JobRecord) : undefined)
  const count = (state: string) => db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM jobs WHERE state = ?').get(state)?.n ?? 0

  const table: LeaseTable = {
    lease: async (max, t, until) => db.transaction(() => {
      const groups = new Set<string>() // one job of a group per round
      return db.prepare<[number, number], { record: string; payload: string }>(`SELECT record, payload FROM jobs q WHERE ${FREE} AND not_before <= ? ORDER BY not_before, id LIMIT ?`)
        .all(t, max)
        .flatMap((found) => {
          const job = leased(JSON.parse(found.record) as JobRecord, t)
          if (job.group !== undefined && groups.has(job.group)) return []
          if (job.group !== undefined) groups.add(job.group)
          const token = randomUUID()
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
    recordProcess: () => {},
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
      async add(job, reservation) {
        if (reservation?.status === 'duplicate') return { status: 'duplicate', id: reservation.jobId }
        try {
          const result = db.transaction(() => {
            const holder = job.dedupKey === undefined ? undefined : parse(byKey.get(job.dedupKey))
            const admission = admit({ holder, windowMs: retention.windowMs, now: now(), queued: count('queued'), maxQueue: options.maxQueue })
            const refused = refusal(admission)
            if (refused) return refused
            if (admission.kind === 'requeue') return join(queuedAgain(admission.job, now(), job.runAt), job.group, true)
            if (holder) {
              store(keyMoved(holder)) // the previous holder (done past the window) gives its key up
              db.prepare('UPDATE jobs SET dedup_key = NULL WHERE id = ?').run(Number(holder.id))
            }
            const id = Number(db.prepare('INSERT INTO jobs (dedup_key, record, payload, state, not_before) VALUES (?, \'{}\', ?, \'queued\', 0)')
              .run(job.dedupKey ?? null, job.payloadJson).lastInsertRowid)
            return join(accepted(job, String(id), now()), job.group, false)
          }).immediate()
          if (result.status === 'accepted') pool.wake()
          return result
        } finally {
          if (reservation) book.settle(reservation)
        }
      },
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
      async retry(id, mode = 'resume') {
        const job = parse(byId.get(Number(id)))
        if (!job) return undefined
        // A job of a concurrency group rejoins it: one whose group has a newer job is stale and ends superseded.
        const group = job.group === undefined ? undefined : { key: job.group, debounceMs: 0, maxWaitMs: 0 }
        const next = retriedAs(job, mode, now())
        db.transaction(() => join(next, group, true)).immediate()
        // As stored (superseded, when its group has a newer job), over `next` for the fields JSON leaves out.
        const queuedAgain = { ...next, ...parse(byId.get(Number(id))) }
        pool.wake()
        return queuedAgain
      },
      async purge(before) {
        const cutoff = purgeCutoff(before, now(), retention.windowMs)
        const gone = db.prepare<[number, number]>(
          `DELETE FROM jobs WHERE (state IN ('done', 'skipped', 'superseded') AND json_extract(record, '$.finishedAt') < ?)
            OR (state = 'failed' AND json_extract(record, '$.finishedAt') < ?)`,
        )
        return gone.run(cutoff.doneBefore, cutoff.failedBefore).changes
      },
      counts: async () => ({
        queued: count('queued'), running: count('running'), done: count('done'), failed: count('failed'), skipped: count('skipped'), superseded: count('superseded'),
      }),
    },
    async start(ctx) {
      log = ctx.log
      if (ctx.admin) return
      // A lease that ran out belongs to a worker that is gone: its job is queued again (the lifecycle's edge).
      const expired = db.prepare<[number], { record: string }>('SELECT record FROM jobs WHERE state = \'running\' AND lease_until < ?').all(now())
      const back = expired.map((found) => recovered(JSON.parse(found.record) as JobRecord, now()))
      for (const job of back) store(job)
      // One a newer job of its group outdated while it ran ends superseded: the kit publishes and counts it.
      pool.ended(back.filter((job) => job.state === 'superseded'))
    },
    async close() {
      db.close()
    },
  }
}
