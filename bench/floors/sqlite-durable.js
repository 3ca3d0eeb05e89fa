/**
 * The durable floor (SQLite), issue 24: the floor's work (floor-work.js), then the raw body and its delivery id
 * written with better-sqlite3 (WAL, synchronous=NORMAL: what hookpilot's `sync: normal` promises, a killed
 * process loses nothing committed), one transaction for every request accepted in one turn of the event loop
 * (group commit), the 202s after the commit. The least a gateway that keeps what it acknowledged does on one
 * thread; hookpilot's sqlite row is measured against it (bench/server.js sqlite-floor, and handle-cost.js).
 *
 * A delivery id counts as seen from the moment it is accepted (a copy that arrives before the commit is a
 * duplicate of it, as in hookpilot); if the commit fails, its requests are answered 500 and their ids forgotten
 * (floor-work.js, batchingFloor).
 */
import Database from 'better-sqlite3'
import { asHandler, batchingFloor, committed, notCommitted } from './floor-work.js'

/**
 * Opens `file`; `handle(req, body)` resolves `{ status, body }` once the request's event is committed (or at
 * once, for an answer that stores nothing).
 */
export function durableFloor(file) {
  const table = floorTable(file)
  const handle = batchingFloor((items) => {
    try {
      table.commit(items)
    } catch (err) {
      for (const item of items) notCommitted(item, err instanceof Error ? err.message : String(err))
      return
    }
    for (const item of items) committed(item)
  })
  return { handle, close: table.close }
}

/**
 * The durable floor's file: `commit(items)` writes each `{ id, body }` in one transaction (throws if it did not
 * commit). Shared with the writer thread of sqlite-worker.js.
 */
export function floorTable(file) {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.exec('CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, delivery_id TEXT NOT NULL UNIQUE, body BLOB NOT NULL)')
  const insert = db.prepare('INSERT INTO events (delivery_id, body) VALUES (?, ?)')
  const commit = db.transaction((items) => {
    for (const item of items) insert.run(item.id, item.body)
  })
  return { commit: (items) => commit.immediate(items), close: () => db.close() }
}

/** The durable floor as a node:http handler `(req, res, body)` over `file`. */
export function sqliteDurableFloor(file) {
  return asHandler(durableFloor(file).handle)
}
