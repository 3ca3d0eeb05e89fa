/**
 * The durable floor with its writer in a worker thread (issue 24, item 3, measured on the floor first): the
 * floor's work (floor-work.js) on the request thread, then each turn's accepted events posted to a worker
 * thread that owns the SQLite connection and commits them there exactly as sqlite-durable.js does (the same
 * table, WAL, synchronous=NORMAL, one transaction per batch); the 202s go out when the worker says the batch
 * committed. Against sqlite-durable.js in the same run it answers whether a writer off the request thread pays
 * on this machine's cores, before hookpilot's own store is rebuilt around one.
 */
import { Worker } from 'node:worker_threads'
import { asHandler, batchingFloor, committed, notCommitted } from './floor-work.js'

/**
 * Starts the writer over `file`; `handle(req, body)` resolves `{ status, body }` once the request's event is
 * committed (or at once, for an answer that stores nothing).
 */
export function workerFloor(file) {
  const worker = new Worker(new URL('./floor-writer.js', import.meta.url), { workerData: { file } })
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
