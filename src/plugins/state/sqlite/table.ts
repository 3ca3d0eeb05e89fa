/**
 * The queue's table: the atomic primitives the worker kit (core/jobs/pool.ts) needs, over the `jobs` table.
 * Every record it writes is one the lifecycle (core/jobs/transitions.ts) returned; this file decides who owns
 * a lease and how rows are read and written, nothing about a job's life.
 *
 * A lease names its owner (host, boot, pid namespace, pid and a token of this process) and its try (a token
 * of its own), and lasts until `lease_until`, renewed by the pool while the try runs. A write of a try names
 * its token, so once another process took the job over, the old try can write nothing. A job whose owner is
 * dead in this namespace is taken back at once (and the process groups it recorded killed); one whose owner
 * lives elsewhere only when its lease ran out; a live owner here keeps its jobs.
 */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { GatewayError } from '../../../core/errors.js'
import type { LeaseTable, LeasedRow } from '../../../core/jobs/pool.js'
import type { AddResult, JobGroup, JobRecord, NewJob } from '../../../core/jobs/state-backend.js'
import {
  accepted, admit, joinGroup, leased, queuedAgain, recovered, refusal, type Joined, type KeyHolder, type PurgeCutoff,
} from '../../../core/jobs/transitions.js'
import type { JsonObject } from '../../../core/types.js'
import { isRunning, killOrphans, ownerName, parseOwner, parseRecorded, recordProcess, sameNamespace, thisOwner } from '../../process/orphans.js'
import type { Db } from './open.js'
import { payloadCache } from './payload-cache.js'
import { decodePayload, encodePayload, type PayloadRow } from './payload-codec.js'
import {
  DELETE_FINISHED, RECORD_COLUMNS, UPDATE_KEEPING_LEASE, UPDATE_LEASE, UPDATE_LEASED, UPDATE_RECORD, recordParams, toRecord, type JobRow,
} from './rows.js'
import type { Writer } from './writer.js'

/** What {@link SqliteTable.add} did: the queue's answer, and the running jobs it outdated (job id → newer job). */
export type TableAdd = AddResult & { readonly outdated?: ReadonlyMap<string, string> | undefined }

/** What the backend needs beyond {@link LeaseTable}. */
export interface SqliteTable extends LeaseTable {
  holder(key: string): KeyHolder | undefined
  add(job: NewJob, limits: { readonly maxQueue: number; readonly windowMs: number }, now: number): Promise<TableAdd>
  /**
   * Writes a job an operator queued again and joins it to its group (it runs at once, or ends superseded when
   * its group has a newer job); call inside a write.
   */
  rejoin(record: JobRecord, now: number): TableAdd
  /**
   * Re-queues the running jobs of dead owners (killing what they left); resolves how many, and those that ended
   * instead (`superseded`: a newer job of their group outdated them while they ran).
   */
  recover(now: number): Promise<{ jobs: number; killed: number; ended: JobRecord[] }>
  /** Deletes finished jobs that `cutoff` names; resolves how many. */
  expire(cutoff: PurgeCutoff): Promise<number>
}

/** Parsed payloads kept for the lease: plenty for a queue that keeps up (agent.concurrency is at most 256). */
const FRESH_PAYLOADS = 256

/** Creates the table's statements over `db`. */
export function sqliteTable(db: Db, writer: Writer, compress: (json: string) => Promise<Buffer> = async (json) => encodePayload(json)): SqliteTable {
  const me = thisOwner(hostname(), randomBytes(6).toString('hex'))
  const owner = ownerName(me)
  const fresh = payloadCache(FRESH_PAYLOADS)
  let tokens = 0
  const newToken = () => `${me.token}.${(++tokens).toString(36)}`

  const holder = db.prepare<[string], { id: number; state: KeyHolder['state']; finished_at: number | null }>(
    'SELECT id, coalesce(outcome, state) AS state, finished_at FROM jobs WHERE dedup_key = ?',
  )
  const holderRecord = db.prepare<[string], JobRow>(`SELECT ${RECORD_COLUMNS} FROM jobs WHERE dedup_key = ?`)
  const countQueued = db.prepare<[], { n: number }>('SELECT n FROM counts WHERE state = \'queued\'')
  const unfinished = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM jobs WHERE state IN (\'queued\', \'running\')')
  // The lifecycle's `leasable`, as SQL: due, and no job of its concurrency group running.
  const free = `(q.grp IS NULL OR NOT EXISTS (SELECT 1 FROM jobs r WHERE r.grp = q.grp AND r.state = 'running'))`
  const nextDue = db.prepare<[], { at: number | null }>(`SELECT min(not_before) AS at FROM jobs q WHERE state = 'queued' AND ${free}`)
  const insert = db.prepare(`INSERT INTO jobs (route, event, delivery_id, dedup_key, received_at, state, outcome, stage, answer, progress,
    attempts, not_before, last_error, updated_at, finished_at, grp, burst_at, covers, superseded_by, note, url, link, hook) VALUES (@route,
    @event, @delivery_id, @dedup_key, @received_at, @state, @outcome, @stage, @answer, @progress, @attempts, @not_before, @last_error,
    @updated_at, @finished_at, @grp, @burst_at, @covers, @superseded_by, @note, @url, @link, @hook)`)
  const insertPayload = db.prepare<[number, Buffer]>('INSERT INTO payloads (job_id, brotli) VALUES (?, ?)')
  const payloadOf = db.prepare<[number], PayloadRow>('SELECT json, brotli FROM payloads WHERE job_id = ?')
  const due = db.prepare<[number, number], JobRow>(
    `SELECT ${RECORD_COLUMNS} FROM jobs q WHERE state = 'queued' AND not_before <= ? AND ${free} ORDER BY not_before, id LIMIT ?`,
  )
  const leasedBy = db.prepare<[number, string], JobRow>(
    `SELECT ${RECORD_COLUMNS} FROM jobs WHERE id = ? AND lease_token = ? AND state = 'running'`,
  )
  const writeRecord = db.prepare(UPDATE_RECORD)
  const writeKeepingLease = db.prepare(UPDATE_KEEPING_LEASE)
  const groupMembers = db.prepare<[string, number], JobRow>(
    `SELECT ${RECORD_COLUMNS} FROM jobs WHERE grp = ? AND state IN ('queued', 'running') AND id != ?`,
  )
  const groupNewest = db.prepare<[string], { id: number; received_at: number }>(
    'SELECT id, received_at FROM jobs WHERE grp = ? ORDER BY received_at DESC, id DESC LIMIT 1',
  )
  const writeLeased = db.prepare(UPDATE_LEASED)
  const writeLease = db.prepare(UPDATE_LEASE)
  const dropKey = db.prepare<[string]>('UPDATE jobs SET dedup_key = NULL WHERE dedup_key = ?')
  const addProcess = db.prepare<[string, number, string]>(
    'UPDATE jobs SET processes = json_insert(coalesce(processes, \'[]\'), \'$[#]\', json(?)) WHERE id = ? AND lease_token = ?',
  )
  const othersRunning = db.prepare<[string, number], JobRow & { owner: string | null; lease_until: number | null; processes: string | null }>(
    `SELECT ${RECORD_COLUMNS}, owner, lease_until, processes FROM jobs WHERE state = 'running' AND (owner IS NULL OR owner != ? OR lease_until <= ?)`,
  )
  const renewOne = db.prepare<[number, number, string]>(
    'UPDATE jobs SET lease_until = ? WHERE id = ? AND lease_token = ? AND state = \'running\'',
  )
  const expire = db.prepare<[number, number]>(DELETE_FINISHED)

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
    // This process's own job whose lease ran out: its try lost the lease (renewals the store refused, a full
    // disk) and was aborted, writing nothing more. Nobody else would give it back before a restart.
    if (name === owner) return { take: (leaseUntil ?? 0) <= now, local: false }
    if (other !== undefined && sameNamespace(me, other)) {
      const dead = other.pid === me.pid ? other.token !== me.token : !isRunning(other.pid)
      return { take: dead, local: true }
    }
    return { take: (leaseUntil ?? 0) <= now, local: false }
  }

  /**
   * Writes `record` (stored, or queued again) and joins it to its concurrency group in the caller's write: the
   * lifecycle's joinGroup, where a job queued again (`requeued`: a redelivery, an operator's retry) whose group
   * has a newer job ends superseded at once. Resolves the queue's answer.
   */
  function joinStored(record: JobRecord, group: JobGroup | undefined, requeued: boolean, now: number): TableAdd {
    if (group === undefined) {
      writeRecord.run(recordParams(record))
      return { status: 'accepted', id: record.id }
    }
    const members = groupMembers.all(group.key, Number(record.id)).map(toRecord)
    const newest = requeued ? groupNewest.get(group.key) : undefined
    const joined = joinGroup(record, group, members, now, newest && { id: String(newest.id), receivedAt: newest.received_at })
    writeRecord.run(recordParams(joined.job))
    return writeOthers(joined, record.id)
  }

  /** Writes the group's jobs that `joined` superseded or outdated: job `by` is their newer one. */
  function writeOthers(joined: Joined, by: string): TableAdd {
    const outdated = new Map<string, string>()
    for (const other of joined.others) {
      if (other.state === 'running') {
        writeKeepingLease.run(recordParams(other))
        outdated.set(other.id, by)
      } else {
        writeRecord.run(recordParams(other))
      }
    }
    return { status: 'accepted', id: by, superseded: joined.superseded, outdated }
  }

  return {
    rejoin(record, now) {
      const group = record.group === undefined ? undefined : { key: record.group, debounceMs: 0, maxWaitMs: 0 }
      return joinStored(record, group, true, now)
    },
    holder(key) {
      const row = holder.get(key)
      return row && { id: String(row.id), state: row.state, finishedAt: row.finished_at ?? undefined }
    },
    async add(job, { maxQueue, windowMs }, now) {
      let stored: number | undefined
      /** A failed job queued again joins its concurrency group in the same write (the lifecycle's `joinGroup`). */
      const requeue = (record: JobRecord): TableAdd => joinStored(record, job.group, true, now)
      const payload = await compress(job.payloadJson)
      return writer.run((): TableAdd => {
        const current = job.dedupKey === undefined ? undefined : holderRecord.get(job.dedupKey)
        const was = current && toRecord(current)
        const admission = admit({ holder: was, windowMs, now, queued: countQueued.get()?.n ?? 0, maxQueue })
        const refused = refusal(admission)
        if (refused) return refused
        if (admission.kind === 'requeue') return requeue(queuedAgain(admission.job, now, job.runAt))
        // keyMoved: the previous holder's record loses the key (the only column that edge changes).
        if (was && job.dedupKey !== undefined) dropKey.run(job.dedupKey)
        // A new job is inserted with its place in its group already (burst, covers, when it is due): writing
        // the row a second time rewrites its index entries, which in a burst over many groups is most of the
        // cost of joining. Its place does not depend on its id, which only the insert gives; the members'
        // records name that id, so they are written after it, by the same pure `joinGroup` with the id.
        const group = job.group
        const members = group ? groupMembers.all(group.key, 0).map(toRecord) : []
        const placed = group ? joinGroup(accepted(job, '', now), group, members, now).job : accepted(job, '', now)
        const { id: _unassigned, ...record } = recordParams(placed)
        const result = insert.run({
          ...record, route: job.route, event: job.event, delivery_id: job.deliveryId, dedup_key: job.dedupKey ?? null, received_at: job.receivedAt,
          link: job.link ?? null, hook: job.hook ?? null,
        })
        stored = Number(result.lastInsertRowid)
        insertPayload.run(stored, payload)
        fresh.put(stored, job.payload)
        if (group === undefined) return { status: 'accepted', id: String(stored) }
        return writeOthers(joinGroup(accepted(job, String(stored), now), group, members, now), String(stored))
      }, { admits: true }).catch((err: unknown) => {
        // Not stored: the id may be given to another job, which must not be handed this payload.
        if (stored !== undefined) fresh.drop(stored)
        throw err
      })
    },
    lease(max, now, until) {
      return writer.run((): LeasedRow[] => {
        const rows: LeasedRow[] = []
        // Two queued jobs of one group (an operator retried an old one) are never leased in one round.
        const groups = new Set<string>()
        for (const row of due.all(now, max)) {
          if (row.grp !== null && groups.has(row.grp)) continue
          if (row.grp !== null) groups.add(row.grp)
          const token = newToken()
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
    recordProcess(id, token, pid) {
      // Not awaited by the runner: the watchdog already ties the group to this process; this is for a crash.
      writer.run(() => addProcess.run(JSON.stringify(recordProcess(pid)), Number(id), token)).catch(() => {})
    },
    nextDue() {
      return nextDue.get()?.at ?? undefined
    },
    unfinished() {
      return unfinished.get()?.n ?? 0
    },
    recover(now) {
      return writer.run(() => {
        let jobs = 0
        let killed = 0
        const ended: JobRecord[] = []
        for (const row of othersRunning.all(owner, now)) {
          const { take, local } = reclaim(row.owner, row.lease_until, now)
          if (!take) continue
          // Pids mean these processes only in the owner's own namespace: elsewhere, nothing is killed here.
          if (local) killed += killOrphans(parseRecorded(row.processes))
          const record = recovered(toRecord(row), now)
          writeRecord.run(recordParams(record))
          if (record.state === 'running' || record.state === 'queued') jobs++
          else ended.push(record)
        }
        return { jobs, killed, ended }
      })
    },
    expire(cutoff) {
      return writer.run(() => expire.run(cutoff.doneBefore, cutoff.failedBefore).changes)
    },
  }
}
