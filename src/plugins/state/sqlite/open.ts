/**
 * Opening the state database: the folder made if missing, WAL mode, the chosen durability, and the schema
 * migrated forward. Every way this can fail says what is wrong with `state.path` and what to change.
 */
import Database from 'better-sqlite3'
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import { GatewayError, messageOf } from '../../../core/errors.js'
import { migrate } from './schema.js'
import { stateError } from './state-error.js'

/** A better-sqlite3 connection. */
export type Db = Database.Database

/** `state.sync`: `normal` survives a killed process, `full` also survives a power loss (an fsync per commit). */
export type SyncMode = 'normal' | 'full'

/**
 * Opens (creating if needed) the database at `path` and brings its schema up to date.
 *
 * @example
 * ```ts
 * const db = openStateDb('/var/lib/hookpilot/state.db', 'normal')   // { create: false }: an admin command's open
 * ```
 */
export function openStateDb(path: string, sync: SyncMode, options: { readonly create?: boolean } = {}): Db {
  if (options.create === false && !existsSync(path)) {
    throw new GatewayError('ERR_STATE_MISSING', `No jobs yet: there is no state file at ${path} (hookpilot serve creates it when it starts).`)
  }
  try {
    mkdirSync(dirname(path), { recursive: true })
  } catch (cause) {
    throw stateError(path, `cannot create its folder ${dirname(path)}: ${reason(cause)}`, cause)
  }
  let db: Db
  try {
    // Created readable by this user only: it holds payloads and answers. (SQLite gives the -wal and -shm files
    // the database file's mode.) An existing file keeps the mode its operator gave it.
    if (!existsSync(path)) createPrivate(path)
    db = new Database(path, { timeout: 5_000 })
  } catch (cause) {
    throw stateError(path, `cannot open it: ${reason(cause)}`, cause)
  }
  try {
    // WAL: readers (hookpilot jobs) never block the writer, and a commit appends instead of rewriting pages.
    useWal(db)
    db.pragma(`synchronous = ${sync === 'full' ? 'FULL' : 'NORMAL'}`)
    db.pragma('foreign_keys = ON')
    // Statement journals in memory: each job's write is a savepoint of its batch's transaction (writer.ts), and
    // SQLite keeps there a copy of every page the write changes that the batch changed before. Past 64 KiB (a
    // job joining its concurrency group: the superseded job's row and index entries too) SQLite would spill it
    // to a temporary file outside the state folder (/var/tmp), written page by page: half the cost of such an
    // accept in a burst, and a failed accept where that folder cannot be written (a read-only root filesystem).
    db.pragma('temp_store = MEMORY')
    migrate(db, path)
    return db
  } catch (cause) {
    db.close()
    if (GatewayError.is(cause)) throw cause
    throw stateError(path, reason(cause), cause)
  }
}

/** How long a start waits for another process switching the same new file to WAL (the open's busy timeout). */
const WAL_SWITCH_MS = 5_000

/**
 * Switches `db` to WAL. On a new file another process may be switching at the same moment: each holds a read
 * lock and wants the write lock, and SQLite answers one of them SQLITE_BUSY at once instead of waiting, as
 * waiting could deadlock ("database is locked" at start, without the busy timeout). That one tries again once
 * the other is through, for at most the busy timeout.
 */
function useWal(db: Db): void {
  const until = Date.now() + WAL_SWITCH_MS
  for (;;) {
    try {
      db.pragma('journal_mode = WAL')
      return
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= until) throw err
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10) // a synchronous pause: opening is synchronous
    }
  }
}

/** What went wrong, in words a person can act on. */
function reason(err: unknown): string {
  const code = (err as { code?: unknown }).code
  switch (code) {
    case 'SQLITE_NOTADB':
      return 'the file is not a SQLite database (is it another file?)'
    case 'SQLITE_READONLY':
    case 'SQLITE_READONLY_DIRECTORY':
    case 'SQLITE_CANTOPEN':
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return `no permission to write it (${String(code)})`
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder'
    case 'SQLITE_CORRUPT':
      return 'the database is damaged; restore it from a backup (see docs/durability.md)'
    default:
      return messageOf(err)
  }
}

/** Creates an empty file only this user can read; one another process created a moment before is fine. */
function createPrivate(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600))
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'EEXIST') throw err
  }
}

/**
 * For the disk-full tests only (test/e2e/sqlite-outages.system.test.ts), not a setting: with
 * `HOOKPILOT_TEST_SQLITE_ROOM_PAGES=n` the file may grow n pages past its size at open. SQLite's
 * `max_page_count` then fails a write that needs more with SQLITE_FULL, exactly as a full disk does, without
 * root or a small mount.
 */
export function capForTests(db: Db): void {
  const room = Number(process.env['HOOKPILOT_TEST_SQLITE_ROOM_PAGES'] ?? Number.NaN)
  if (!Number.isInteger(room) || room < 0) return
  db.pragma(`max_page_count = ${(db.pragma('page_count', { simple: true }) as number) + room}`)
}
