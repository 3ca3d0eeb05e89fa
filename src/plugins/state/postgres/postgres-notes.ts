/**
 * The PostgreSQL backend's notes: one row per key in the shared schema (migration 3), each change decided by one
 * statement that compares the version and writes, so every instance on the database agrees on one winner without
 * a transaction of its own. Expiry is on the backend's clock (`now`, a fake one in tests): a row past its
 * `expires_at` reads as no note (version 0), is replaced by the next write of its key, and is removed by the
 * housekeeping pass ({@link PostgresNotes.purgeExpired}).
 */
import type pg from 'pg'
import { checkedNote, type NoteStore } from '../../../core/jobs/lifecycle/notes.js'
import type { Clock, JsonValue } from '../../../core/types.js'
import { keyColumn } from './table.js'

/** The notes, and the housekeeping of their expired rows. */
export interface PostgresNotes extends NoteStore {
  /** Removes the rows expired at `now`; resolves how many. */
  purgeExpired(now: number): Promise<number>
}

/**
 * Notes over `pool` in `schema` (already migrated). A key is kept as its UTF-8 bytes, as the de-dup keys are: a key
 * may hold a NUL, which PostgreSQL's text cannot.
 */
export function postgresNotes(pool: () => pg.Pool, schema: string, now: Clock): PostgresNotes {
  const s = `"${schema}"`
  /** A row's version as a writer sees it: an expired row counts as no note. */
  const seen = (table: string, clock: string) => `(CASE WHEN ${table}.expires_at IS NOT NULL AND ${table}.expires_at <= ${clock} THEN 0 ELSE ${table}.version END)`
  // Insert, or replace when the version is still the expected one. PostgreSQL locks the conflicting row and checks
  // the WHERE against its newest committed version, so two writers naming one version cannot both win.
  const upsert = `INSERT INTO ${s}.notes AS n (key, value, version, expires_at) VALUES ($1, $2, $3::integer + 1, $5)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = excluded.version, expires_at = excluded.expires_at
    WHERE ${seen('n', '$4')} = $3
    RETURNING version`
  // Removal: the row goes if its version is the expected one. With nothing to remove (expected 0 and no live
  // row), the removal succeeds as the memory store's does: the note is version 0 before and after.
  const remove = `WITH gone AS (DELETE FROM ${s}.notes n WHERE key = $1 AND ${seen('n', '$3')} = $2 RETURNING 1)
    SELECT CASE
      WHEN EXISTS (SELECT 1 FROM gone) THEN $2::integer + 1
      WHEN $2 = 0 AND NOT EXISTS (SELECT 1 FROM ${s}.notes n WHERE key = $1 AND ${seen('n', '$3')} > 0) THEN 1
    END AS version`
  return {
    async get(key) {
      const { rows } = await pool().query<{ value: string; version: number }>(
        `SELECT value, version FROM ${s}.notes WHERE key = $1 AND (expires_at IS NULL OR expires_at > $2)`, [keyColumn(key), now()],
      )
      const row = rows[0]
      return row === undefined ? undefined : { value: JSON.parse(row.value) as JsonValue, version: row.version }
    },
    async put(key, value, expected, options) {
      const text = checkedNote(key, value)
      const at = now()
      if (value === null) {
        const { rows } = await pool().query<{ version: number | null }>(remove, [keyColumn(key), expected, at])
        return rows[0]?.version ?? undefined
      }
      const expiresAt = options?.ttlMs === undefined ? null : at + options.ttlMs
      const { rows } = await pool().query<{ version: number }>(upsert, [keyColumn(key), text, expected, at, expiresAt])
      return rows[0]?.version
    },
    async purgeExpired(at) {
      const { rowCount } = await pool().query(`DELETE FROM ${s}.notes WHERE expires_at <= $1`, [at])
      return rowCount ?? 0
    },
  }
}
