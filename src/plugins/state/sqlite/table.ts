/**
 * The queue's table: the SQLite state backend as the kit's store (core/jobs/worker/job-store.ts: its writes run inside
 * the group commit, one savepoint each) and as the worker kit's lease table (core/jobs/worker/lease-table.ts), over the
 * `jobs` table. Every record it writes is one the lifecycle (core/jobs/lifecycle/transitions.ts) returned, in the order
 * the kit (core/jobs/worker/store-writes.ts) applies them; this file decides how rows are read and written, nothing
 * about a job's life.
 *
 * A lease names its owner (the kit's crash recovery names this process) and its try (a token of its own), and
 * lasts until `lease_until`, renewed by the pool while the try runs. A write of a try names its token, so once
 * another process took the job over, the old try can write nothing. Which jobs of other owners go back, and
 * which process groups they left are killed, is the kit's (core/jobs/worker/crash-recovery.ts): this table keeps the
 * owner, the lease and the recorded groups.
 */
import { GatewayError } from '../../../core/errors.js'
import { crashRecovery, type Recovery } from '../../../core/jobs/worker/crash-recovery.js'
import type { JobStore, JobTransaction } from '../../../core/jobs/worker/job-store.js'
import type { LeaseTable, LeasedRow } from '../../../core/jobs/worker/lease-table.js'
import type { JobRecord } from '../../../core/jobs/lifecycle/job-record.js'
import { leased, type KeyHolder } from '../../../core/jobs/lifecycle/transitions.js'
import type { JsonObject } from '../../../core/types.js'
import type { Db } from './open.js'
import { payloadCache } from './payload-cache.js'
import { decodePayload, encodePayload, type PayloadRow } from './payload-codec.js'
import {
  DELETE_FINISHED, RECORD_COLUMNS, UPDATE_DROPPING_KEY, UPDATE_KEEPING_LEASE, UPDATE_LEASE, UPDATE_LEASED, UPDATE_RECORD, recordParams, toRecord, type JobRow,
} from './rows.js'
import type { Writer } from './writer.js'

/** A new job's payload as the table stores it: compressed before the write, and parsed (kept for its first lease). */
export interface SqlitePayload {
  readonly json: JsonObject
  readonly brotli: Buffer
}

/** What the backend needs of its table: the kit's store and lease table, and the reads and recovery of its own. */
export interface SqliteTable extends LeaseTable, JobStore<SqlitePayload> {
  /** The job holding de-dup key `key`, read outside of a write (a reservation). */
  holder(key: string): KeyHolder | undefined
  /** Takes back the running jobs of dead owners through the kit's crash recovery, in one write. */
  recover(now: number): Promise<Recovery>
}

/** Parsed payloads kept for the lease: plenty for a queue that keeps up (agent.concurrency is at most 256). */
const FRESH_PAYLOADS = 256

/** Creates the table's statements over `db`. */
export function sqliteTable(db: Db, writer: Writer, compress: (json: string) => Promise<Buffer> = async (json) => encodePayload(json)): SqliteTable {
  const crash = crashRecovery()
  const owner = crash.owner
  const fresh = payloadCache(FRESH_PAYLOADS)

  const holder = db.prepare<[string], { id: number; state: KeyHolder['state']; finished_at: number | null }>(
    'SELECT id, coalesce(outcome, state) AS state, finished_at FROM jobs WHERE dedup_key = ?',
  )
  const holderRecord = db.prepare<[string], JobRow>(`SELECT ${RECORD_COLUMNS} FROM jobs WHERE dedup_key = ?`)
  const byId = db.prepare<[number], JobRow>(`SELECT ${RECORD_COLUMNS} FROM jobs WHERE id = ?`)
  const countQueued = db.prepare<[], { n: number }>('SELECT n FROM counts WHERE state = \'queued\'')
  const unfinished = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM jobs WHERE state IN (\'queued\', \'running\')')
  // The lifecycle's `leasable`, as SQL: due, and no job of its concurrency group running.
  const free = `(q.grp IS NULL OR NOT EXISTS (SELECT 1 FROM jobs r WHERE r.grp = q.grp AND r.state = 'running'))`
  const nextDue = db.prepare<[], { at: number | null }>(`SELECT min(not_before) AS at FROM jobs q WHERE state = 'queued' AND ${free}`)
  const insert = db.prepare(`INSERT INTO jobs (route, event, delivery_id, dedup_key, received_at, state, outcome, stage, answer, progress,
    attempts, not_before, last_error, updated_at, finished_at, grp, burst_at, covers, superseded_by, note, url, link, hook, fair_key, turn, start_by, usage)
    VALUES (@route, @event, @delivery_id, @dedup_key, @received_at, @state, @outcome, @stage, @answer, @progress, @attempts, @not_before,
    @last_error, @updated_at, @finished_at, @grp, @burst_at, @covers, @superseded_by, @note, @url, @link, @hook, @fair_key, @turn, @start_by, @usage)`)
  const insertPayload = db.prepare<[number, Buffer]>('INSERT INTO payloads (job_id, brotli) VALUES (?, ?)')
  const payloadOf = db.prepare<[number], PayloadRow>('SELECT json, brotli FROM payloads WHERE job_id = ?')
  // Walked in the lease order of the jobs_turn index (turn, not_before, then the rowid, of queued jobs), stopping at the
  // LIMIT: left to itself the planner takes jobs_due for the range on not_before and sorts every due job.
  const due = db.prepare<[number, number], JobRow>(
    `SELECT ${RECORD_COLUMNS} FROM jobs q INDEXED BY jobs_turn WHERE state = 'queued' AND not_before <= ? AND ${free} ORDER BY turn, not_before, id LIMIT ?`,
  )
  const leasedBy = db.prepare<[number, string], JobRow>(
    `SELECT ${RECORD_COLUMNS} FROM jobs WHERE id = ? AND lease_token = ? AND state = 'running'`,
  )
  const writeRecord = db.prepare(UPDATE_RECORD)
  const writeDroppingKey = db.prepare(UPDATE_DROPPING_KEY)
  const writeKeepingLease = db.prepare(UPDATE_KEEPING_LEASE)
  const groupMembers = db.prepare<[string], JobRow>(
    `SELECT ${RECORD_COLUMNS} FROM jobs WHERE grp = ? AND state IN ('queued', 'running')`,
  )
  const groupNewest = db.prepare<[string], { id: number; received_at: number }>(
    'SELECT id, received_at FROM jobs WHERE grp = ? ORDER BY received_at DESC, id DESC LIMIT 1',
  )
  // The turns a new job takes its own from (the lifecycle's takeTurn): three reads of the turn indexes.
  const turnsSeen = db.prepare<[string | null], { first_queued: number | null; last_running: number | null; last_of_key: number | null }>(
    `SELECT (SELECT min(turn) FROM jobs INDEXED BY jobs_turn WHERE state = 'queued') AS first_queued,
            (SELECT max(turn) FROM jobs WHERE state = 'running') AS last_running,
            (SELECT max(turn) FROM jobs WHERE fair_key = ? AND state = 'queued') AS last_of_key`,
  )
  const writeLeased = db.prepare(UPDATE_LEASED)
  const writeLease = db.prepare(UPDATE_LEASE)
  const addProcess = db.prepare<[string, number, string]>(
    'UPDATE jobs SET processes = json_insert(coalesce(processes, \'[]\'), \'$[#]\', json(?)) WHERE id = ? AND lease_token = ?',
  )
  const othersRunning = db.prepare<[string, number], JobRow & { owner: string | null; lease_until: number | null; processes: string | null }>(
    `SELECT ${RECORD_COLUMNS}, owner, lease_until, processes FROM jobs WHERE state = 'running' AND (owner IS NULL OR owner != ? OR lease_until <= ?)`,
  )
  const renewOne = db.prepare<[number, number, string]>(
    'UPDATE jobs SET lease_until = ? WHERE id = ? AND lease_token = ? AND state = \'running\'',
  )
  const deleteFinished = db.prepare<[number, number]>(DELETE_FINISHED)

  /** A job's payload as stored (every job has one: it is written in the transaction that stores the job). */
  function storedPayload(id: number): JsonObject {
    const row = payloadOf.get(id)
    if (!row) throw new GatewayError('ERR_STATE', `job ${id} has no stored payload`)
    return decodePayload(row)
  }

  /** The ids the running transaction inserted: their parsed payloads are dropped if it is not stored. */
  let inserting: number[] = []
  /** The kit's store primitives, one object for every write (each runs synchronously inside the group commit). */
  const tx: JobTransaction<SqlitePayload> = {
    get(id) {
      const row = /^\d+$/.test(id) ? byId.get(Number(id)) : undefined
      return row && toRecord(row)
    },
    put(record) {
      // A running job outdated by a newer one keeps its lease; a record that gave its de-dup key up (`keyMoved`)
      // drops the column, which no other write touches: rewriting its unique index at every write would cost.
      if (record.state === 'running') writeKeepingLease.run(recordParams(record))
      else if (record.dedupKey === undefined) writeDroppingKey.run(recordParams(record))
      else writeRecord.run(recordParams(record))
    },
    insert(record, payload) {
      const { id: _unassigned, ...columns } = recordParams(record)
      const result = insert.run({
        ...columns, route: record.route, event: record.event, delivery_id: record.deliveryId, dedup_key: record.dedupKey ?? null,
        received_at: record.receivedAt, link: record.link ?? null, hook: record.hook ?? null, fair_key: record.fairKey ?? null,
        start_by: record.startBy ?? null,
      })
      const id = Number(result.lastInsertRowid)
      insertPayload.run(id, payload.brotli)
      fresh.put(id, payload.json)
      inserting.push(id)
      return String(id)
    },
    holder(key) {
      const row = holderRecord.get(key)
      return row && toRecord(row)
    },
    members: (group) => groupMembers.all(group).map(toRecord),
    newest(group) {
      const row = groupNewest.get(group)
      return row && { id: String(row.id), receivedAt: row.received_at }
    },
    queued: () => countQueued.get()?.n ?? 0,
    turns(fairKey) {
      const row = turnsSeen.get(fairKey ?? null)
      return { firstQueued: row?.first_queued ?? undefined, lastRunning: row?.last_running ?? undefined, lastOfKey: row?.last_of_key ?? undefined }
    },
    purge: (cutoff) => deleteFinished.run(cutoff.doneBefore, cutoff.failedBefore).changes,
  }

  return {
    async prepare(job) {
      return { json: job.payload, brotli: await compress(job.payloadJson) }
    },
    transaction(work, options) {
      const inserted: number[] = []
      return writer.run(() => {
        inserting = inserted
        try {
          return work(tx)
        } finally {
          inserting = []
        }
      }, { admits: options?.admits === true }).catch((err: unknown) => {
        // Not stored: the id may be given to another job, which must not be handed this payload.
        for (const id of inserted) fresh.drop(id)
        throw err
      })
    },
    holder(key) {
      const row = holder.get(key)
      return row && { id: String(row.id), state: row.state, finishedAt: row.finished_at ?? undefined }
    },
    lease(max, now, until) {
      return writer.run((): LeasedRow[] => {
        const rows: LeasedRow[] = []
        // Two queued jobs of one group (an operator retried an old one) are never leased in one round.
        const groups = new Set<string>()
        for (const row of due.all(now, max)) {
          if (row.grp !== null && groups.has(row.grp)) continue
          if (row.grp !== null) groups.add(row.grp)
          const token = crash.token()
          const job = leased(toRecord(row), now)
          writeLease.run({ ...recordParams(job), owner, token, until })
          rows.push({ job, token, payload: fresh.take(row.id) ?? storedPayload(row.id) })
        }
        return rows
      })
    },
    update(id, token, change, after) {
      return writer.run((): JobRecord | undefined => {
        const row = /^\d+$/.test(id) ? leasedBy.get(Number(id), token) : undefined
        if (!row) return undefined
        const next = change(toRecord(row))
        if (after === 'release' || next.state !== 'running') writeRecord.run(recordParams(next))
        else writeLeased.run({ ...recordParams(next), token, until: after.until })
        return next
      })
    },
    renew(held, until) {
      return writer.run(() => {
        const kept = new Set<string>()
        for (const [id, token] of held) if (renewOne.run(until, Number(id), token).changes > 0) kept.add(id)
        return kept
      })
    },
    recordProcess(id, token, process) {
      // Not awaited by the runner: the watchdog already ties the group to this process; this is for a crash.
      writer.run(() => addProcess.run(JSON.stringify(process), Number(id), token)).catch(() => {})
    },
    nextDue() {
      return nextDue.get()?.at ?? undefined
    },
    unfinished() {
      return unfinished.get()?.n ?? 0
    },
    recover(now) {
      return writer.run(() => {
        const held = othersRunning.all(owner, now).map((row) => ({ job: toRecord(row), owner: row.owner, leaseUntil: row.lease_until, processes: row.processes }))
        return crash.recover(held, (record) => writeRecord.run(recordParams(record)), now)
      })
    },
  }
}
