/**
 * The SQLite backend with its payloads compressed on a worker thread: accepts are stored in the order they were
 * made, and close() lets every accept on its way commit before the file closes.
 */
import Database from 'better-sqlite3'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../src/core/log/logger.js'
import { decodePayload, type PayloadRow } from '../../src/plugins/state/sqlite/payload-codec.js'
import { sqliteState } from '../../src/plugins/state/sqlite/sqlite-state.js'
import { newJob } from '../../src/testing/state-backend.js'

const folder = await mkdtemp(join(tmpdir(), 'hookpilot-sqlite-compression-'))

const start = async (path: string) => {
  const state = sqliteState({ path, concurrency: 1, maxQueue: 1000 })
  await state.start?.({ log: silentLogger })
  return state
}

describe('sqliteState: payloads compressed on a thread of their own', () => {
  it('close() with accepts on their way: each is stored, in the order made, before the file closes', async () => {
    const path = join(folder, 'closing.db')
    const state = await start(path)
    const ids = Array.from({ length: 40 }, (_, i) => `delivery-${String(i).padStart(2, '0')}`)
    // Two turns of accepts: the first batch reaches the compression thread, the second is still this turn's
    // when close() starts.
    const first = ids.slice(0, 20).map((id) => state.queue.add(newJob(id), undefined))
    await new Promise((resolve) => setImmediate(resolve))
    const second = ids.slice(20).map((id) => state.queue.add(newJob(id), undefined))
    await state.close?.()
    const answers = await Promise.all([...first, ...second])
    expect(answers.map((a) => a.status)).toEqual(ids.map(() => 'accepted'))

    const again = await start(path)
    const stored = await again.jobs.list({ limit: 100 })
    await again.close?.()
    // Newest first: the reverse of the order the accepts were made, ids rising with it.
    expect(stored.map((job) => job.deliveryId)).toEqual([...ids].reverse())
    const numeric = stored.map((job) => Number(job.id))
    expect(numeric).toEqual([...numeric].sort((a, b) => b - a))
    const db = new Database(path, { readonly: true })
    const rows = db.prepare<[], PayloadRow & { delivery_id: string }>('SELECT delivery_id, json, brotli FROM jobs JOIN payloads ON job_id = id').all()
    db.close()
    expect(rows).toHaveLength(ids.length)
    for (const row of rows) expect(decodePayload(row)).toEqual(newJob(row.delivery_id).payload)
  })
})
