/**
 * Whether the database has room for a job again, asked the only honest way: a committed write that needs new
 * pages as a job's does. A finished job row with a payload the size of a large one is stored and deleted in
 * one transaction, so no reader ever sees it; its pages go to the file's free list, where the next jobs find
 * them. (A read, or an update in place, works on a full disk and would answer yes too soon.)
 */
import type { Db } from './open.js'
import type { Writer } from './writer.js'

/** The payload the probe writes: a large compressed webhook body. */
const PROBE_BYTES = 32 * 1024

/** Creates the probe: resolves once the write committed, rejects while the store cannot take it. */
export function roomProbe(db: Db, writer: Writer): () => Promise<void> {
  const insertJob = db.prepare(`INSERT INTO jobs (route, event, delivery_id, received_at, state, stage, not_before, updated_at, finished_at)
    VALUES ('', 'room probe', '', 0, 'done', 'run', 0, 0, 0)`)
  const insertPayload = db.prepare<[number | bigint, Buffer]>('INSERT INTO payloads (job_id, brotli) VALUES (?, ?)')
  const remove = db.prepare<[number | bigint]>('DELETE FROM jobs WHERE id = ?')
  const filler = Buffer.alloc(PROBE_BYTES)
  return () => writer.run(() => {
    const id = insertJob.run().lastInsertRowid
    insertPayload.run(id, filler)
    remove.run(id)
  })
}
