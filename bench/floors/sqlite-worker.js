/**
 * The durable floor with its writer in a worker thread (issue 24, item 3, measured on the floor first): the
 * floor's work (floor-work.js) on the request thread, then each turn's accepted events posted to a worker
 * thread that owns the SQLite connection and commits them there exactly as sqlite-durable.js does (the same
 * table, WAL, synchronous=NORMAL, one transaction per batch); the 202s go out when the worker says the batch
 * committed. Against sqlite-durable.js in the same run it answers whether a writer off the request thread pays
 * on this machine's cores, before hookpilot's own store is rebuilt around one.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { asHandler, batchingFloor, committed, notCommitted } from './floor-work.js'

/** The worker: opens the file, then commits every batch it is sent and answers with the batch's number. */
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file)
db.pragma('journal_mode = WAL')
db.pragma('synchronous = NORMAL')
db.exec('CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, delivery_id TEXT NOT NULL UNIQUE, body BLOB NOT NULL)')
const insert = db.prepare('INSERT INTO events (delivery_id, body) VALUES (?, ?)')
const commit = db.transaction((items) => { for (const item of items) insert.run(item.id, item.body) })
parentPort.on('message', ({ seq, items }) => {
  try {
    commit.immediate(items)
    parentPort.postMessage({ seq })
  } catch (err) {
    parentPort.postMessage({ seq, error: err instanceof Error ? err.message : String(err) })
  }
})
`

/**
 * Starts the writer over `file`; `handle(req, body)` resolves `{ status, body }` once the request's event is
 * committed (or at once, for an answer that stores nothing).
 */
export function workerFloor(file) {
  const worker = new Worker(WRITER, { eval: true, workerData: { file, driver: createRequire(import.meta.url).resolve('better-sqlite3') } })
  /** Batches posted and not yet answered, by number. */
  const posted = new Map()
  let seq = 0
  worker.on('message', ({ seq: done, error }) => {
    const items = posted.get(done) ?? []
    posted.delete(done)
    for (const item of items) {
      if (error === undefined) committed(item)
      else notCommitted(item, error)
    }
  })
  const handle = batchingFloor((items) => {
    posted.set(++seq, items)
    worker.postMessage({ seq, items: items.map((item) => ({ id: item.id, body: item.body })) })
  })
  return { handle, close: () => worker.terminate() }
}

/** The worker-thread durable floor as a node:http handler `(req, res, body)` over `file`. */
export function sqliteWorkerFloor(file) {
  return asHandler(workerFloor(file).handle)
}
