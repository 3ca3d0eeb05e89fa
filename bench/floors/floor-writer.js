/**
 * The writer thread of sqlite-worker.js: owns the durable floor's file (sqlite-durable.js, floorTable), commits
 * every batch it is sent in one transaction and answers with the batch's number (and the error, if it did not
 * commit).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { floorTable } from './sqlite-durable.js'

const table = floorTable(workerData.file)
parentPort.on('message', ({ seq, items }) => {
  try {
    table.commit(items)
    parentPort.postMessage({ seq })
  } catch (err) {
    parentPort.postMessage({ seq, error: err instanceof Error ? err.message : String(err) })
  }
})
