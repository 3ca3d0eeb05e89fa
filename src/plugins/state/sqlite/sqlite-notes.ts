/**
 * The SQLite backend's notes: one row per key in the state file, written through the group commit (so a note is
 * as durable as a job), its version compared in the same statement that writes it, so every process on the file
 * agrees on one winner. Expired rows are ignored when read and removed by the next write of their key.
 */
import { checkedNote, type NoteStore } from '../../../core/jobs/lifecycle/notes.js'
import type { Clock, JsonValue } from '../../../core/types.js'
import type { Db } from './open.js'
import type { Writer } from './writer.js'

interface NoteRow {
  readonly value: string
  readonly version: number
}

/** Notes over `db`'s `notes` table (schema.ts), written through `writer`. */
export function sqliteNotes(db: Db, writer: Writer, now: Clock): NoteStore {
  const read = db.prepare<[string, number], NoteRow>('SELECT value, version FROM notes WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)')
  const current = db.prepare<[string, number], { version: number }>('SELECT version FROM notes WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)')
  const upsert = db.prepare<[string, string, number, number | null]>(
    `INSERT INTO notes (key, value, version, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = excluded.version, expires_at = excluded.expires_at`,
  )
  const remove = db.prepare<[string]>('DELETE FROM notes WHERE key = ?')
  return {
    get(key) {
      const row = read.get(key, now())
      return Promise.resolve(row === undefined ? undefined : { value: JSON.parse(row.value) as JsonValue, version: row.version })
    },
    async put(key, value, expected, options) {
      const text = checkedNote(key, value)
      return writer.run(() => {
        const at = now()
        const version = current.get(key, at)?.version ?? 0
        if (version !== expected) return undefined
        if (value === null) remove.run(key)
        else upsert.run(key, text, version + 1, options?.ttlMs === undefined ? null : at + options.ttlMs)
        return version + 1
      })
    },
  }
}
