/**
 * The queue's table: storing accepted jobs, leasing due ones, recording answers, progress and outcomes, and
 * giving back the jobs a dead process held. A lease names its owner (host, boot, pid namespace, pid and a token
 * of this process) and lasts `leaseMs`, renewed while this process still means to store the job's outcome. A
 * job whose owner is dead in this namespace is taken back at once (and the process groups it recorded killed);
 * one whose owner lives elsewhere only when its lease ran out; a live owner here keeps its jobs.
 */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { GatewayError } from '../../../core/errors.js'
import type { LeaseTable, LeasedRow } from '../../../core/jobs/pool.js'
import { finishedRecord, queuedAgain } from '../../../core/jobs/transitions.js'
import type { AddResult, NewJob, Reservation } from '../../../core/jobs/state-backend.js'
import type { KeyHolder } from '../../../core/jobs/reservations.js'
import type { Clock, JsonObject } from '../../../core/types.js'
import { isRunning, killOrphans, ownerName, parseOwner, parseRecorded, recordProcess, sameNamespace, thisOwner } from '../../process/orphans.js'
import type { Db } from './open.js'
import { payloadCache } from './payload-cache.js'
import { decodePayload, encodePayload, type PayloadRow } from './payload-codec.js'
import { queuedCount } from './queued-count.js'
import { RECORD_COLUMNS, UPDATE_RECORD, recordParams, toRecord, type JobRow } from './rows.js'
import type { Writer } from './writer.js'

/** What the backend needs beyond {@link LeaseTable}. */
export interface SqliteTable extends LeaseTable {
  holder(key: string): KeyHolder | undefined
  add(job: NewJob, reservation: Reservation | undefined, maxQueue: number, now: number): Promise<AddResult>
  /** Re-queues the running jobs of dead owners (killing what they left); resolves how many. */
  recover(now: number): Promise<{ jobs: number; killed: number }>
  /** Extends the leases this process holds. */
  renew(now: number): Promise<void>
  /** Deletes finished jobs past their retention; resolves how many. */
  expire(doneBefore: number, failedBefore: number): Promise<number>
  /** Counts queued jobs again at the next add: a write this table did not make may have queued some. */
  recount(): void
}

/** Parsed payloads kept for the lease: plenty for a queue that keeps up (agent.concurrency is at most 256). */
const FRESH_PAYLOADS = 256

/** Creates the table's statements over `db`. */
export function sqliteTable(db: Db, writer: Writer, options: { readonly leaseMs: number; readonly now: Clock }): SqliteTable {
  const me = thisOwner(hostname(), randomBytes(6).toString('hex'))
  const owner = ownerName(me)
  // Jobs this process leased and has not stored an outcome for: the only leases it renews.
  const held = new Set<number>()
  const { leaseMs } = options
  const queued = queuedCount(() => countQueued.get()?.n ?? 0)
  const fresh = payloadCache(FRESH_PAYLOADS)
  /** A write that moves jobs in or out of `queued`: when it is not stored, the count is taken again. */
  const tracked = <T>(work: () => T): Promise<T> =>
    writer.run(work).catch((err: unknown) => {
      queued.forget()
      throw err
    })

  const holder = db.prepare<[string], { id: number; state: KeyHolder['state']; finished_at: number | null }>(
    'SELECT id, state, finished_at FROM jobs WHERE dedup_key = ?',
  )
  const countQueued = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM jobs WHERE state = \'queued\'')
  const unfinished = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM jobs WHERE state IN (\'queued\', \'running\')')
  const nextDue = db.prepare<[], { at: number | null }>('SELECT min(not_before) AS at FROM jobs WHERE state = \'queued\'')
  const dropKey = db.prepare<[string]>('UPDATE jobs SET dedup_key = NULL WHERE dedup_key = ?')
  const insert = db.prepare(`INSERT INTO jobs (route, event, delivery_id, dedup_key, received_at, state, stage, not_before, updated_at)
    VALUES (@route, @event, @delivery_id, @dedup_key, @received_at, 'queued', 'run', @now, @now)`)
  const insertPayload = db.prepare<[number, Buffer]>('INSERT INTO payloads (job_id, brotli) VALUES (?, ?)')
  const payloadOf = db.prepare<[number], PayloadRow>('SELECT json, brotli FROM payloads WHERE job_id = ?')
  const lease = db.prepare<{ owner: string; until: number; now: number; max: number }, JobRow>(
    `UPDATE jobs SET state = 'running', owner = @owner, lease_until = @until, attempts = attempts + 1, updated_at = @now
     WHERE id IN (SELECT id FROM jobs WHERE state = 'queued' AND not_before <= @now ORDER BY not_before, id LIMIT @max)
     RETURNING ${RECORD_COLUMNS}`,
  )
  const owned = db.prepare<[number, string], JobRow>(`SELECT ${RECORD_COLUMNS} FROM jobs WHERE id = ? AND owner = ?`)
  const byId = db.prepare<[number], JobRow>(`SELECT ${RECORD_COLUMNS} FROM jobs WHERE id = ?`)
  const update = db.prepare(UPDATE_RECORD)
  const saveAnswer = db.prepare<[string, number, number, string]>(
    'UPDATE jobs SET stage = \'deliver\', answer = ?, progress = 0, attempts = 1, updated_at = ? WHERE id = ? AND owner = ?',
  )
  const saveProgress = db.prepare<[number, number, number, string]>('UPDATE jobs SET progress = ?, updated_at = ? WHERE id = ? AND owner = ?')
  const addProcess = db.prepare<[string, number, string]>(
    'UPDATE jobs SET processes = json_insert(coalesce(processes, \'[]\'), \'$[#]\', json(?)) WHERE id = ? AND owner = ?',
  )
  const running = db.prepare<[string], { id: number; owner: string | null; lease_until: number | null; processes: string | null }>(
    'SELECT id, owner, lease_until, processes FROM jobs WHERE state = \'running\' AND (owner IS NULL OR owner != ?)',
  )
  const giveBack = db.prepare<[number, number, number]>(
    'UPDATE jobs SET state = \'queued\', owner = NULL, lease_until = NULL, processes = NULL, not_before = ?, updated_at = ? WHERE id = ?',
  )
  const renew = db.prepare<[number, string, string]>(
    'UPDATE jobs SET lease_until = ? WHERE owner = ? AND state = \'running\' AND id IN (SELECT value FROM json_each(?))',
  )
  const expire = db.prepare<[number, number]>(
    'DELETE FROM jobs WHERE (state = \'done\' AND finished_at < ?) OR (state = \'failed\' AND finished_at < ?)',
  )

  /** A job's payload as stored (every job has one: it is written in the transaction that stores the job). */
  function storedPayload(id: number): JsonObject {
    const row = payloadOf.get(id)
    if (!row) throw new GatewayError('ERR_STATE', `job ${id} has no stored payload`)
    return decodePayload(row)
  }

  /**
   * Whether a job another owner leased goes back to the queue: always when that owner is dead here (a pid of
   * this namespace that no longer runs, or that is this process's own under another token: an earlier life of
   * this pid, like a container's pid 1); for an owner elsewhere (another host, boot or pid namespace, or written
   * some other way) only when its lease ran out. A live owner of this namespace keeps its jobs: it renews them
   * when it can, and its agents must not be killed under it.
   */
  function reclaim(name: string | null, leaseUntil: number | null, now: number): { readonly take: boolean; readonly local: boolean } {
    const other = parseOwner(name)
    if (name === null) return { take: true, local: false }
    if (other !== undefined && sameNamespace(me, other)) {
      const dead = other.pid === me.pid ? other.token !== me.token : !isRunning(other.pid)
      return { take: dead, local: true }
    }
    return { take: (leaseUntil ?? 0) <= now, local: false }
  }

  return {
    holder(key) {
      const row = holder.get(key)
      return row && { id: String(row.id), state: row.state, finishedAt: row.finished_at ?? undefined }
    },
    add(job, reservation, maxQueue, now) {
      let stored: number | undefined
      return tracked((): AddResult => {
        if (queued.get() >= maxQueue) return { status: 'full' }
        if (reservation?.status === 'redeliver') {
          const row = byId.get(Number(reservation.jobId))
          if (row?.state === 'failed') {
            update.run(recordParams(queuedAgain(toRecord(row), now)))
            queued.add(1)
            return { status: 'accepted', id: String(row.id) }
          }
        }
        // The key moves to the new job (its previous holder finished before the window); a holder that is
        // still live here means another process stored this delivery first.
        if (job.dedupKey !== undefined) {
          const current = holder.get(job.dedupKey)
          if (current && current.state !== 'done' && current.state !== 'failed') return { status: 'duplicate', id: String(current.id) }
          dropKey.run(job.dedupKey)
        }
        const result = insert.run({
          route: job.route, event: job.event, delivery_id: job.deliveryId, dedup_key: job.dedupKey ?? null, received_at: job.receivedAt, now,
        })
        stored = Number(result.lastInsertRowid)
        insertPayload.run(stored, encodePayload(job.payloadJson))
        fresh.put(stored, job.payload)
        queued.add(1)
        return { status: 'accepted', id: String(stored) }
      }).catch((err: unknown) => {
        // Not stored: the id may be given to another job, which must not be handed this payload.
        if (stored !== undefined) fresh.drop(stored)
        throw err
      })
    },
    lease(max, now) {
      return tracked((): LeasedRow[] => {
        const rows = lease.all({ owner, until: now + leaseMs, now, max })
        queued.add(-rows.length)
        for (const row of rows) held.add(row.id)
        return rows.map((row) => ({ job: toRecord(row), payload: fresh.take(row.id) ?? storedPayload(row.id) }))
      })
    },
    async saveAnswer(id, text, now) {
      await writer.run(() => saveAnswer.run(text, now, Number(id), owner))
    },
    async saveProgress(id, parts, now) {
      await writer.run(() => saveProgress.run(parts, now, Number(id), owner))
    },
    recordProcess(id, pid) {
      // Not awaited by the runner: the watchdog already ties the group to this process; this is for a crash.
      writer.run(() => addProcess.run(JSON.stringify(recordProcess(pid)), Number(id), owner)).catch(() => {})
    },
    async finish(id, outcome, now) {
      await tracked(() => {
        held.delete(Number(id))
        const row = owned.get(Number(id), owner)
        // No row: the lease was lost (this process was taken for dead) and another owner has the job.
        if (!row) return
        const next = finishedRecord(toRecord(row), outcome, now)
        update.run(recordParams(next))
        if (next.state === 'queued') queued.add(1)
      })
    },
    nextDue() {
      return nextDue.get()?.at ?? undefined
    },
    unfinished() {
      return unfinished.get()?.n ?? 0
    },
    recover(now) {
      return tracked(() => {
        let jobs = 0
        let killed = 0
        for (const row of running.all(owner)) {
          const { take, local } = reclaim(row.owner, row.lease_until, now)
          if (!take) continue
          // Pids mean these processes only in the owner's own namespace: elsewhere, nothing is killed here.
          if (local) killed += killOrphans(parseRecorded(row.processes))
          giveBack.run(now, now, row.id)
          jobs++
        }
        queued.add(jobs)
        return { jobs, killed }
      })
    },
    async renew(now) {
      if (held.size === 0) return
      const ids = JSON.stringify([...held])
      await writer.run(() => renew.run(now + leaseMs, owner, ids))
    },
    expire(doneBefore, failedBefore) {
      return writer.run(() => expire.run(doneBefore, failedBefore).changes)
    },
    recount: () => queued.forget(),
  }
}
