/**
 * The PostgreSQL backend's table as the kit's asynchronous store (`AsyncJobStore`: each primitive one statement
 * inside a transaction held open on one pooled connection) and as the worker kit's `LeaseTable`. Every record it
 * writes is one the kit returned; this file decides how rows are read, locked and written, nothing about a job's
 * life.
 *
 * Adds are written in batches, a turn's adds in one transaction (add-commit.ts): the batch reads the rows
 * holding its adds' de-dup keys in one statement, and counts the queue from its counter row once.
 *
 * Locks, so that instances racing decide as one process would:
 * - an add locks the row holding its de-dup key (`holder`, `FOR UPDATE`, in key order for the whole batch), then
 *   the queued count's row (`queued`: `max_queue` is counted by one batch at a time over every instance), then
 *   its concurrency group (`members`, a transaction-scoped advisory lock taken before the statement that reads,
 *   so the read sees what the previous holder committed). A key no row holds is not locked: two instances
 *   storing one new delivery at once meet at the key's unique index, and the loser's add runs again, finding
 *   the winner's job (a duplicate);
 * - a lease takes due rows `FOR UPDATE SKIP LOCKED` (two instances never lease one job, and never wait on each
 *   other), and a job of a group only under its group's advisory lock, re-checking that none of it runs;
 * - a try's every write names its lease token (`WHERE token = $2`): once another instance took the job over,
 *   the old try writes nothing.
 * A deadlock or a serialization failure rolls the write back and runs it again (the kit's sequence starts over).
 */
import { createHash } from 'node:crypto'
import type pg from 'pg'
import { crashRecovery, leased, turnOf, type AsyncJobStore, type AsyncJobTransaction, type JobRecord, type LeasedRow, type LeaseTable, type Recovery } from '../../../backend-kit/index.js'
import { addCommit, type BatchTransaction } from './add-commit.js'
import { perTurn } from './turn-batch.js'
import { withTransaction } from './transaction.js'

/** A row's record (its JSON text) and id, as the queries below return them. */
interface RecordRow {
  readonly id: string
  readonly record: string
}

/** What the backend needs of its table: the kit's store and lease table, and the reads and recovery of its own. */
export interface PostgresTable extends LeaseTable, AsyncJobStore<string> {
  /** The job holding de-dup key `key`, read outside of a write (a reservation); a turn's reads share one statement. */
  holder(key: string): Promise<JobRecord | undefined>
  /** The store through which the add of a job with de-dup key `key` (if any) is written: its turn's batch. */
  adding(key: string | undefined): AsyncJobStore<string>
  /** Takes back the running jobs of dead owners (or of run-out leases) through the kit's crash recovery, in one write. */
  recover(now: number): Promise<Recovery>
  nextDue(): Promise<number | undefined>
  unfinished(): Promise<number>
  /** The connections the table runs over (the jobs view reads through them directly). */
  readonly pool: pg.Pool
}

/** SQLSTATEs after which the transaction is run again: a serialization failure, a deadlock. */
const RETRYABLE = new Set(['40001', '40P01'])
const MAX_TRIES = 5

/** The record a row holds, with the id the row has (the record's own `id` may be the empty one of an insert). */
export function toRecord(row: RecordRow): JobRecord {
  return { ...(JSON.parse(row.record) as JobRecord), id: String(row.id) }
}

/**
 * A de-dup key as its column holds it: its UTF-8 bytes. A key joins the route and the delivery id with a NUL,
 * which PostgreSQL's text (and jsonb) cannot hold; the record keeps it as JSON text, where it is escaped.
 */
export function keyColumn(key: string | undefined): Buffer | null {
  // A concurrency group's key is held the same way, for the same reason.
  return key === undefined ? null : Buffer.from(key, 'utf8')
}

/** A 64-bit advisory lock id for `name` (computed here: a name may hold a NUL, which SQL text cannot). */
export function lockId(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString()
}

/** The channel on which an instance is told of a new job of `schema`. */
export function jobsChannel(schema: string): string {
  return `${schema}_jobs`
}

/** Creates the table over `pool`, in `schema` (already migrated). */
export function postgresTable(pool: pg.Pool, schema: string): PostgresTable {
  const s = `"${schema}"`
  const channel = jobsChannel(schema)
  const crash = crashRecovery()
  const owner = crash.owner
  const lockOf = (what: string) => lockId(`${schema}\u0000${what}`)
  /** The lifecycle's `leasable` as SQL: no job of its concurrency group running. */
  const free = `(q.grp IS NULL OR NOT EXISTS (SELECT 1 FROM ${s}.jobs r WHERE r.grp = q.grp AND r.state = 'running'))`
  const columns = 'record = $2, state = $3, not_before = $4, grp = $5, dedup_key = $6, finished_at = $7'
  const params = (job: JobRecord) => [job.id, JSON.stringify(job), job.state, job.notBefore, keyColumn(job.group), keyColumn(job.dedupKey), job.finishedAt ?? null]
  const numeric = (id: string) => /^\d{1,18}$/.test(id)

  /** Runs `work` in one transaction on one connection; a conflict (rolled back) runs it again. */
  async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await withTransaction(pool, work)
      } catch (err) {
        const code = (err as { code?: unknown }).code
        if (typeof code === 'string' && RETRYABLE.has(code) && attempt < MAX_TRIES) continue
        throw err
      }
    }
  }

  /** The kit's store primitives over one open transaction. */
  function primitives(c: pg.PoolClient): AsyncJobTransaction<string> {
    const lock = (what: string) => c.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockOf(what)])
    return {
      async get(id) {
        if (!numeric(id)) return undefined
        const { rows } = await c.query<RecordRow>(`SELECT id, record FROM ${s}.jobs WHERE id = $1`, [id])
        return rows[0] && toRecord(rows[0])
      },
      async put(record) {
        // A running job outdated by a newer one keeps its lease; any other record holds none.
        const lease = record.state === 'running' ? '' : ', token = NULL, owner = NULL, lease_until = NULL, processes = NULL'
        // A job queued again (a redelivery, an operator's retry) is news for every instance.
        const notify = record.state === 'queued' ? `, pg_notify('${channel}', '')` : ''
        // The turn changes only when a job is queued again (it takes a new one), which only `put` writes.
        await c.query(`WITH w AS (UPDATE ${s}.jobs SET ${columns}, turn = $8${lease} WHERE id = $1) SELECT 1${notify}`, [...params(record), turnOf(record)])
      },
      async insert(record, payload) {
        const { rows } = await c.query<{ id: string }>({
          name: `${schema}.insert`,
          text: `WITH i AS (INSERT INTO ${s}.jobs (record, state, not_before, grp, dedup_key, finished_at, received_at, payload, turn, fair_key)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id) SELECT id, pg_notify('${channel}', '') FROM i`,
          values: [JSON.stringify(record), record.state, record.notBefore, keyColumn(record.group), keyColumn(record.dedupKey), record.finishedAt ?? null, record.receivedAt, payload,
            turnOf(record), keyColumn(record.fairKey)],
        })
        return String(rows[0]!.id)
      },
      async holder(key) {
        // Locked, not read: the row's newest version, and no other write changes it before this one commits.
        const { rows } = await c.query<RecordRow>({ name: `${schema}.holder`, text: `SELECT id, record FROM ${s}.jobs WHERE dedup_key = $1 FOR UPDATE`, values: [keyColumn(key)] })
        return rows[0] && toRecord(rows[0])
      },
      async members(group) {
        await lock(`group ${group}`)
        const { rows } = await c.query<RecordRow>(`SELECT id, record FROM ${s}.jobs WHERE grp = $1 AND state IN ('queued', 'running')`, [keyColumn(group)])
        return rows.map(toRecord)
      },
      async newest(group) {
        const { rows } = await c.query<{ id: string; received_at: string }>(
          `SELECT id, received_at FROM ${s}.jobs WHERE grp = $1 ORDER BY received_at DESC, id DESC LIMIT 1`, [keyColumn(group)],
        )
        return rows[0] && { id: String(rows[0].id), receivedAt: Number(rows[0].received_at) }
      },
      async queued() {
        // The counter row (migration 4), locked until the write commits: one write at a time counts the queue.
        const { rows } = await c.query<{ n: string }>({ name: `${schema}.queued`, text: `SELECT n FROM ${s}.counts WHERE name = 'queued' FOR UPDATE` })
        return Number(rows[0]?.n ?? 0)
      },
      async turns(fairKey) {
        const { rows } = await c.query<{ first_queued: string | null; last_running: string | null; last_of_key: string | null }>(
          `SELECT (SELECT min(turn) FROM ${s}.jobs WHERE state = 'queued') AS first_queued,
                  (SELECT max(turn) FROM ${s}.jobs WHERE state = 'running') AS last_running,
                  (SELECT max(turn) FROM ${s}.jobs WHERE fair_key = $1 AND state = 'queued') AS last_of_key`, [keyColumn(fairKey)],
        )
        const number = (value: string | null | undefined) => (value === null || value === undefined ? undefined : Number(value))
        return { firstQueued: number(rows[0]?.first_queued), lastRunning: number(rows[0]?.last_running), lastOfKey: number(rows[0]?.last_of_key) }
      },
      async purge(cutoff) {
        const { rowCount } = await c.query(
          `DELETE FROM ${s}.jobs WHERE (state IN ('done', 'skipped', 'superseded') AND finished_at < $1) OR (state = 'failed' AND finished_at < $2)`,
          [cutoff.doneBefore, cutoff.failedBefore],
        )
        return rowCount ?? 0
      },
    }
  }

  /**
   * A batch of adds' transaction. At its start, two statements: the rows holding the batch's de-dup keys, read
   * and locked (in key order, so two instances' batches lock them in the same order); then the queued count's
   * row, locked until the commit (no other write changes it meanwhile, so the batch keeps the count itself as
   * its inserts change it), with an id for each add from the jobs' sequence. A new job is answered its id at
   * once and its row written with the others' in one statement (`flush`): before the commit, before any
   * primitive that reads or writes other rows, and after each add when the batch runs with savepoints.
   */
  async function openBatch(c: pg.PoolClient, keys: readonly string[], size: number): Promise<BatchTransaction> {
    const base = primitives(c)
    const held = new Map<string, JobRecord>()
    if (keys.length > 0) {
      const { rows } = await c.query<RecordRow & { dedup_key: Buffer }>({
        name: `${schema}.holders`,
        text: `SELECT id, record, dedup_key FROM ${s}.jobs WHERE dedup_key = ANY($1::bytea[]) ORDER BY dedup_key FOR UPDATE`,
        values: [keys.map(keyColumn)],
      })
      for (const row of rows) held.set(row.dedup_key.toString('utf8'), toRecord(row))
    }
    const { rows: [start] } = await c.query<{ n: string; ids: string[] }>({
      name: `${schema}.batch`,
      text: `SELECT n, ARRAY(SELECT nextval(pg_get_serial_sequence('${s}.jobs', 'id')) FROM generate_series(1, $1)) AS ids
        FROM ${s}.counts WHERE name = 'queued' FOR UPDATE`,
      values: [size],
    })
    const read = new Set(keys)
    const ids = (start?.ids ?? []).map(String)
    let queued: number | undefined = start === undefined ? undefined : Number(start.n)
    let rows: { id: string; record: JobRecord; payload: string }[] = []
    const flush = async () => {
      if (rows.length === 0) return
      const writing = rows
      rows = []
      // One row of parameters per job, not arrays: pg would escape every quote of each payload into an array
      // literal (a 25 KB payload is mostly quotes), which cost more CPU than the rest of the accept.
      const values = writing.flatMap((r) => [r.id, JSON.stringify(r.record), r.record.state, r.record.notBefore, keyColumn(r.record.group),
        keyColumn(r.record.dedupKey), r.record.finishedAt ?? null, r.record.receivedAt, r.payload, turnOf(r.record), keyColumn(r.record.fairKey)])
      const tuples = writing.map((_, i) => `(${Array.from({ length: 11 }, (_, j) => `$${11 * i + j + 1}`).join(', ')})`).join(', ')
      await c.query({
        // One prepared statement per number of rows (at most the batch's size).
        name: `${schema}.insert-${writing.length}`,
        text: `WITH i AS (INSERT INTO ${s}.jobs (id, record, state, not_before, grp, dedup_key, finished_at, received_at, payload, turn, fair_key)
          VALUES ${tuples}) SELECT pg_notify('${channel}', '')`,
        values,
      })
    }
    /** A primitive that reads or writes rows: the rows left to write are written first, so it sees them. */
    const after = <A extends unknown[], R>(primitive: (...args: A) => Promise<R>) => async (...args: A) => {
      await flush()
      return primitive(...args)
    }
    // The turns of the batch's adds (the lifecycle's takeTurn): the queue's round read once per batch, a key's last
    // queued turn once per key, then kept here as the batch inserts, so fairness costs no round trip per add.
    let round: { firstQueued: number | undefined; lastRunning: number | undefined } | undefined
    const lastOfKeys = new Map<string, number | undefined>()
    // primitives() always reads turns (the kit's type keeps it optional for backends written before fair turns).
    const readTurns = base.turns ?? (() => Promise.resolve({ firstQueued: undefined, lastRunning: undefined, lastOfKey: undefined }))
    const turnsOf = async (fairKey: string | undefined) => {
      const known = fairKey === undefined || lastOfKeys.has(fairKey)
      if (round === undefined || !known) {
        const seen = await after(readTurns)(fairKey)
        round ??= { firstQueued: seen.firstQueued, lastRunning: seen.lastRunning }
        if (fairKey !== undefined && !lastOfKeys.has(fairKey)) lastOfKeys.set(fairKey, seen.lastOfKey)
      }
      return { ...round, lastOfKey: fairKey === undefined ? undefined : lastOfKeys.get(fairKey) }
    }
    return {
      get: after(base.get),
      members: after(base.members),
      turns: turnsOf,
      newest: after(base.newest),
      purge: after(base.purge),
      holder: (key) => (read.has(key) ? Promise.resolve(held.get(key)) : after(base.holder)(key)),
      async queued() {
        queued ??= await after(base.queued)()
        return queued
      },
      async insert(record, payload) {
        if (record.state === 'queued' && round !== undefined) {
          const turn = turnOf(record)
          round = { ...round, firstQueued: Math.min(round.firstQueued ?? turn, turn) }
          if (record.fairKey !== undefined) lastOfKeys.set(record.fairKey, Math.max(lastOfKeys.get(record.fairKey) ?? turn, turn))
        }
        const id = ids.shift()
        if (id === undefined) return after(base.insert)(record, payload)
        rows.push({ id, record, payload })
        if (queued !== undefined && record.state === 'queued') queued++
        return id
      },
      async put(record) {
        await flush()
        // A job queued again, or one leaving the queue: the triggers count it; read the count and turns again when asked.
        queued = undefined
        round = undefined
        lastOfKeys.clear()
        await base.put(record)
      },
      flush,
      rolledBack() {
        rows = []
        queued = undefined
        round = undefined
        lastOfKeys.clear()
      },
    }
  }
  const adds = addCommit(pool, openBatch)
  const holders = perTurn<string, JobRecord | undefined>(async (keys) => {
    const { rows } = await pool.query<RecordRow & { dedup_key: Buffer }>({
      name: `${schema}.holders-read`,
      text: `SELECT id, record, dedup_key FROM ${s}.jobs WHERE dedup_key = ANY($1::bytea[])`,
      values: [keys.map(keyColumn)],
    })
    const found = new Map(rows.map((row) => [row.dedup_key.toString('utf8'), toRecord(row)]))
    return keys.map((key) => found.get(key))
  })

  /** Of the groups `wanted`, those this lease may take a job of: their advisory lock is free, and none of their jobs runs. */
  async function freeGroups(c: pg.PoolClient, wanted: readonly string[]): Promise<Set<string>> {
    if (wanted.length === 0) return new Set()
    const { rows: locked } = await c.query<{ i: number }>(
      'SELECT i FROM unnest($1::bigint[]) WITH ORDINALITY AS w(lock, i) WHERE pg_try_advisory_xact_lock(w.lock)', [wanted.map((g) => lockOf(`group ${g}`))],
    )
    const mine = locked.map((r) => wanted[Number(r.i) - 1]!)
    // A statement of its own, after the locks: it sees what a lease that held one of them committed.
    const { rows: busy } = await c.query<{ grp: Buffer }>(
      `SELECT DISTINCT grp FROM ${s}.jobs WHERE grp = ANY($1::bytea[]) AND state = 'running'`, [mine.map(keyColumn)],
    )
    const running = new Set(busy.map((r) => r.grp.toString('utf8')))
    return new Set(mine.filter((g) => !running.has(g)))
  }

  return {
    awaits: true,
    pool,
    prepare: (job) => job.payloadJson,
    transaction: (work) => transaction((c) => work(primitives(c))),
    holder: holders,
    adding: (key) => ({ awaits: true, prepare: (job) => job.payloadJson, transaction: (work) => adds.run(key, work) }),
    lease(max, now, until) {
      return transaction(async (c) => {
        const { rows } = await c.query<RecordRow & { payload: string }>(
          `SELECT id, record, payload FROM ${s}.jobs q WHERE state = 'queued' AND not_before <= $1 AND ${free}
            ORDER BY turn, not_before, id LIMIT $2 FOR UPDATE OF q SKIP LOCKED`, [now, max],
        )
        if (rows.length === 0) return []
        const due = rows.map((row) => ({ job: toRecord(row), payload: row.payload }))
        const open = await freeGroups(c, [...new Set(due.flatMap(({ job }) => (job.group === undefined ? [] : [job.group])))])
        const taken: LeasedRow[] = []
        for (const { job, payload } of due) {
          // One job of a group per round (an operator retried an old one beside a newer one).
          if (job.group !== undefined && !open.delete(job.group)) continue
          taken.push({ job: leased(job, now), token: crash.token(), payload: JSON.parse(payload) as LeasedRow['payload'] })
        }
        if (taken.length === 0) return []
        await c.query(
          `UPDATE ${s}.jobs j SET record = u.record, state = u.state, not_before = u.not_before, token = u.token, owner = $1, lease_until = $2,
            processes = NULL FROM unnest($3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::text[]) AS u(id, record, state, not_before, token)
            WHERE j.id = u.id`,
          [owner, until, taken.map((t) => t.job.id), taken.map((t) => JSON.stringify(t.job)), taken.map((t) => t.job.state),
            taken.map((t) => t.job.notBefore), taken.map((t) => t.token)],
        )
        return taken
      })
    },
    update(id, token, change, after) {
      if (!numeric(id)) return Promise.resolve(undefined)
      return transaction(async (c) => {
        const { rows } = await c.query<RecordRow>(
          `SELECT id, record FROM ${s}.jobs WHERE id = $1 AND token = $2 AND state = 'running' FOR UPDATE`, [id, token],
        )
        if (!rows[0]) return undefined // the lease is another's now: write nothing
        const next = change(toRecord(rows[0]))
        if (after === 'release' || next.state !== 'running') {
          await c.query(`UPDATE ${s}.jobs SET ${columns}, token = NULL, owner = NULL, lease_until = NULL, processes = NULL WHERE id = $1`, params(next))
        } else {
          await c.query(`UPDATE ${s}.jobs SET ${columns}, lease_until = $8 WHERE id = $1`, [...params(next), after.until])
        }
        return next
      })
    },
    async renew(held, until) {
      const entries = [...held].filter(([id]) => numeric(id))
      if (entries.length === 0) return new Set()
      const { rows } = await pool.query<{ id: string }>(
        `UPDATE ${s}.jobs j SET lease_until = $1 FROM unnest($2::bigint[], $3::text[]) AS h(id, token)
          WHERE j.id = h.id AND j.token = h.token AND j.state = 'running' RETURNING j.id`,
        [until, entries.map(([id]) => id), entries.map(([, token]) => token)],
      )
      return new Set(rows.map((r) => String(r.id)))
    },
    recordProcess(id, token, process) {
      // Not awaited by the runner: the watchdog already ties the group to this process; this is for a crash.
      if (!numeric(id)) return
      pool.query(
        `UPDATE ${s}.jobs SET processes = coalesce(processes, '[]'::jsonb) || jsonb_build_array($1::jsonb) WHERE id = $2 AND token = $3`,
        [JSON.stringify(process), id, token],
      ).catch(() => {})
    },
    async nextDue() {
      const { rows } = await pool.query<{ at: string | null }>(`SELECT min(not_before) AS at FROM ${s}.jobs q WHERE state = 'queued' AND ${free}`)
      return rows[0]?.at == null ? undefined : Number(rows[0].at)
    },
    async unfinished() {
      const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${s}.jobs WHERE state IN ('queued', 'running')`)
      return Number(rows[0]?.n ?? 0)
    },
    recover(now) {
      return transaction(async (c) => {
        // SKIP LOCKED: a job another instance is writing (its try's outcome, its own recovery) is that one's.
        const { rows } = await c.query<RecordRow & { owner: string | null; lease_until: string | null; processes: unknown }>(
          `SELECT id, record, owner, lease_until, processes FROM ${s}.jobs WHERE state = 'running' AND (owner IS NULL OR owner <> $1 OR lease_until <= $2)
            FOR UPDATE SKIP LOCKED`, [owner, now],
        )
        const held = rows.map((row) => ({
          job: toRecord(row), owner: row.owner, leaseUntil: row.lease_until === null ? null : Number(row.lease_until),
          processes: row.processes === null ? null : JSON.stringify(row.processes),
        }))
        const back: JobRecord[] = []
        const recovery = crash.recover(held, (record) => void back.push(record), now)
        for (const record of back) {
          await c.query(`UPDATE ${s}.jobs SET ${columns}, token = NULL, owner = NULL, lease_until = NULL, processes = NULL WHERE id = $1`, params(record))
        }
        if (recovery.jobs > 0) await c.query(`SELECT pg_notify('${channel}', '')`)
        return recovery
      })
    },
  }
}
