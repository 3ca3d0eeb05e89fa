/**
 * The jobs view over the state database: what `hookpilot jobs` reads, from the serving process or from another
 * one (WAL lets both work on the file at once; the server notices a retried job at its next poll). Its writes
 * (retry, purge) are the kit's, over the table.
 */
import type { JobCounts, JobFilter, JobsView } from '../../../core/jobs/lifecycle/jobs-view.js'
import { dedupKeyOf } from '../../../core/jobs/lifecycle/dedup-key.js'
import { reasonLike } from '../../../core/jobs/views/job-filter.js'
import type { Db } from './open.js'
import { RECORD_COLUMNS, stateIs, toRecord, type JobRow } from './rows.js'

/** The job-filter module's `reasonOf`, as SQL over the stored columns (skipped and superseded are stored done with an outcome). */
const REASON = `(CASE WHEN outcome IS NOT NULL THEN note WHEN state = 'done' THEN NULL ELSE last_error END)`

/** The reads of the jobs view; its writes (retry, purge) are the kit's, over the table (core/jobs/worker/store-writes.ts). */
export type SqliteJobsView = Omit<JobsView, 'retry' | 'purge'>

/** Creates the view. */
export function sqliteJobsView(db: Db): SqliteJobsView {
  const byId = db.prepare<[number], JobRow>(`SELECT ${RECORD_COLUMNS} FROM jobs WHERE id = ?`)
  // The de-dup key's unique index: one row at most, found without a scan.
  const byKey = db.prepare<[string], JobRow>(`SELECT ${RECORD_COLUMNS} FROM jobs WHERE dedup_key = ?`)
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
    async counts() {
      const out = { queued: 0, running: 0, done: 0, failed: 0, skipped: 0, superseded: 0 }
      for (const { state, n } of counts.all()) out[state] = n
      return out
    },
  }
}
