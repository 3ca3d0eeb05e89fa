/**
 * The jobs view over the state database: what `hookpilot jobs` reads and does, from the serving process or
 * from another one (WAL lets both work on the file at once; the server notices a retried job at its next poll).
 */
import type { JobCounts, JobFilter, JobRecord, JobsView } from '../../../core/jobs/state-backend.js'
import { dedupKeyOf } from '../../../core/jobs/dedup-key.js'
import { reasonLike } from '../../../core/jobs/job-filter.js'
import { retriedAs } from '../../../core/jobs/retry-mode.js'
import { purgeCutoff } from '../../../core/jobs/transitions.js'
import type { Clock } from '../../../core/types.js'
import type { Db } from './open.js'
import { DELETE_FINISHED, RECORD_COLUMNS, UPDATE_RECORD, recordParams, stateIs, toRecord, type JobRow } from './rows.js'
import type { Writer } from './writer.js'

/** The job-filter module's `reasonOf`, as SQL over the stored columns (skipped and superseded are stored done with an outcome). */
const REASON = `(CASE WHEN outcome IS NOT NULL THEN note WHEN state = 'done' THEN NULL ELSE last_error END)`

/** Creates the view. */
export function sqliteJobsView(db: Db, writer: Writer, now: Clock, windowMs: number, rejoin: (job: JobRecord) => void): JobsView {
  const byId = db.prepare<[number], JobRow>(`SELECT ${RECORD_COLUMNS} FROM jobs WHERE id = ?`)
  // The de-dup key's unique index: one row at most, found without a scan.
  const byKey = db.prepare<[string], JobRow>(`SELECT ${RECORD_COLUMNS} FROM jobs WHERE dedup_key = ?`)
  const update = db.prepare(UPDATE_RECORD)
  const purge = db.prepare<[number, number]>(DELETE_FINISHED)
  const counts = db.prepare<[], { state: keyof JobCounts; n: number }>('SELECT coalesce(outcome, state) AS state, count(*) AS n FROM jobs GROUP BY 1')
  const get = (id: string): JobRow | undefined => (/^\d+$/.test(id) ? byId.get(Number(id)) : undefined)

  return {
    async list(filter: JobFilter = {}) {
      const where: string[] = []
      const params: Array<string | number> = []
      if (filter.state !== undefined) where.push(stateIs(filter.state))
      if (filter.route !== undefined) {
        where.push('route = ?')
        params.push(filter.route)
      }
      if (filter.since !== undefined) {
        where.push('updated_at >= ?')
        params.push(filter.since)
      }
      if (filter.until !== undefined) {
        where.push('updated_at <= ?')
        params.push(filter.until)
      }
      if (filter.reason !== undefined) {
        where.push(`${REASON} LIKE ? ESCAPE '\\'`)
        params.push(reasonLike(filter.reason))
      }
      if (filter.before !== undefined) {
        where.push('id < ?')
        params.push(/^\d+$/.test(filter.before) ? Number(filter.before) : 0)
      }
      const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''
      const limit = filter.limit === undefined ? '' : `LIMIT ${Math.max(0, Math.floor(filter.limit))}`
      return db.prepare<unknown[], JobRow>(`SELECT ${RECORD_COLUMNS} FROM jobs ${clause} ORDER BY id DESC ${limit}`).all(...params).map(toRecord)
    },
    async get(id) {
      const row = get(id)
      return row && toRecord(row)
    },
    async find(route, deliveryId) {
      const row = byKey.get(dedupKeyOf(route, deliveryId))
      return row && toRecord(row)
    },
    retry(id, mode = 'resume') {
      return writer.run((): JobRecord | undefined => {
        const row = get(id)
        if (!row) return undefined
        const next = retriedAs(toRecord(row), mode, now())
        // A job of a concurrency group rejoins it: one whose group has a newer job is stale and ends superseded.
        if (next.group === undefined) update.run(recordParams(next))
        else rejoin(next)
        return get(id) && toRecord(get(id) as JobRow)
      })
    },
    purge(before) {
      const cutoff = purgeCutoff(before, now(), windowMs)
      return writer.run(() => purge.run(cutoff.doneBefore, cutoff.failedBefore).changes)
    },
    async counts() {
      const out = { queued: 0, running: 0, done: 0, failed: 0, skipped: 0, superseded: 0 }
      for (const { state, n } of counts.all()) out[state] = n
      return out
    },
  }
}
