/**
 * What the SQLite backend does to keep its accept and lease paths fast, checked against the file: the queued
 * count behind max_queue kept in memory, payloads in a table of their own (compressed), and the parsed payload
 * handed to the lease that follows the add.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { NewJob } from '../../src/core/jobs/lifecycle/job-record.js'
import type { StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
import { silentLogger } from '../../src/core/log/logger.js'
import { openStateDb } from '../../src/plugins/state/sqlite/open.js'
import { sqliteState } from '../../src/plugins/state/sqlite/sqlite-state.js'

let dir: string
let opened: StateBackend[] = []

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hookpilot-sqlite-fast-'))
})
afterEach(async () => {
  for (const state of opened) {
    await state.queue.stop(0)
    await state.close?.()
  }
  opened = []
  await rm(dir, { recursive: true, force: true })
})

async function open(maxQueue: number): Promise<StateBackend> {
  const state = sqliteState({ path: join(dir, 'state.db'), concurrency: 2, maxQueue, pollMs: 10 })
  await state.start?.({ log: silentLogger })
  opened.push(state)
  return state
}

function newJob(id: string, payload: NewJob['payload'] = { number: Number(id.replace(/\D/g, '')) || 0 }): NewJob {
  return { route: 'pr', event: 'pull_request', deliveryId: id, dedupKey: `pr\u0000${id}`, payload, payloadJson: JSON.stringify(payload), receivedAt: 1 }
}

async function accept(state: StateBackend, id: string, payload?: NewJob['payload']) {
  const job = newJob(id, payload)
  return state.queue.add(job, await state.dedup.reserve(job.dedupKey!))
}

async function idle(state: StateBackend): Promise<void> {
  await expect.poll(async () => {
    const { queued, running } = await state.jobs.counts()
    return queued + running
  }).toBe(0)
}

describe('sqlite state: the queued count behind max_queue', () => {
  it('refuses the job past max_queue, and so does the next process on the same file', async () => {
    const state = await open(2)
    expect((await accept(state, 'a')).status).toBe('accepted')
    expect((await accept(state, 'b')).status).toBe('accepted')
    expect(await accept(state, 'c')).toEqual({ status: 'full' })
    await state.close?.()
    opened = []

    const next = await open(2)
    expect(await accept(next, 'd')).toEqual({ status: 'full' })
  })

  it('counts leased jobs out: a queue that drains takes jobs again', async () => {
    const state = await open(1)
    state.queue.start(async () => ({ kind: 'done' }))
    for (const id of ['a', 'b', 'c']) {
      expect((await accept(state, id)).status).toBe('accepted')
      await idle(state)
    }
  })

  it('counts again after an operator\'s retry queued a job', async () => {
    const earlier = await open(5)
    earlier.queue.start(async () => ({ kind: 'done' }))
    await accept(earlier, 'x')
    await idle(earlier)
    const [done] = await earlier.jobs.list({ state: 'done' })
    await earlier.queue.stop(0)
    await earlier.close?.()
    opened = []

    const state = await open(2) // no worker: what is queued stays queued
    expect((await accept(state, 'a')).status).toBe('accepted')
    expect((await state.jobs.retry(done!.id))?.state).toBe('queued')
    expect(await accept(state, 'b')).toEqual({ status: 'full' })
  })
})

/** The schema as version 1 wrote it: the payload inside the job's row. */
const VERSION_1 = `CREATE TABLE jobs (
  id INTEGER PRIMARY KEY, route TEXT NOT NULL, event TEXT NOT NULL, delivery_id TEXT NOT NULL, dedup_key TEXT, payload TEXT NOT NULL,
  received_at INTEGER NOT NULL, state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
  stage TEXT NOT NULL CHECK (stage IN ('run', 'deliver')), answer TEXT, progress INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0, not_before INTEGER NOT NULL, last_error TEXT, owner TEXT, lease_until INTEGER,
  processes TEXT, updated_at INTEGER NOT NULL, finished_at INTEGER
);
CREATE UNIQUE INDEX jobs_dedup_key ON jobs (dedup_key) WHERE dedup_key IS NOT NULL;
CREATE INDEX jobs_due ON jobs (state, not_before);
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX jobs_route ON jobs (route, id);
PRAGMA user_version = 1;`

describe('sqlite state: payloads in a table of their own', () => {
  it('moves the payloads of a version 1 file, and its queued job runs with its payload', async () => {
    const v1 = new Database(join(dir, 'state.db'))
    v1.exec(VERSION_1)
    v1.prepare(`INSERT INTO jobs (route, event, delivery_id, dedup_key, payload, received_at, state, stage, not_before, updated_at)
      VALUES ('pr', 'pull_request', 'old', 'pr' || char(0) || 'old', '{"number":7}', 1, 'queued', 'run', 1, 1)`).run()
    v1.close()

    const state = await open(10)
    const payloads: unknown[] = []
    state.queue.start(async ({ payload }) => (payloads.push(payload), { kind: 'done' }))
    await idle(state)
    expect(payloads).toEqual([{ number: 7 }])
    expect((await accept(state, 'old')).status).toBe('duplicate') // its de-dup key came along
  })

  it('a job leased by the process that accepted it gets the payload as parsed, not read and parsed again', async () => {
    const state = await open(10)
    const job = newJob('a', { number: 1 })
    await state.queue.add(job, await state.dedup.reserve(job.dedupKey!))
    const payloads: unknown[] = []
    state.queue.start(async ({ payload }) => (payloads.push(payload), { kind: 'done' }))
    await idle(state)
    expect(payloads[0]).toBe(job.payload)
  })

  it('a job leased after a restart reads its payload from the file; purging a job deletes its payload', async () => {
    const first = await open(10)
    await accept(first, 'a', { number: 1, title: 'stored' })
    await first.close?.()
    opened = []

    const state = await open(10)
    const payloads: unknown[] = []
    // Failed, so a purge may take it at once (a done job keeps its delivery id for the de-dup window).
    state.queue.start(async ({ payload }) => (payloads.push(payload), { kind: 'failed', reason: 'for the test' }))
    await idle(state)
    expect(payloads).toEqual([{ number: 1, title: 'stored' }])
    const db = openStateDb(join(dir, 'state.db'), 'normal')
    // Stored compressed (payload-codec.ts), not as text.
    expect(db.prepare('SELECT json IS NULL AS text_gone, length(brotli) > 0 AS compressed FROM payloads').get()).toEqual({ text_gone: 1, compressed: 1 })
    expect(await state.jobs.purge(Date.now() + 1)).toBe(1)
    expect(db.prepare('SELECT count(*) AS n FROM payloads').get()).toEqual({ n: 0 })
    db.close()
  })
})

describe('sqlite state: a burst over concurrency groups', () => {
  /** A job of pull request `pr`'s group, not due for an hour (no worker runs in these tests anyway). */
  function grouped(id: string, pr: number): NewJob {
    return { ...newJob(id), group: { key: `pr\u0000o/r#${pr}`, debounceMs: 3_600_000, maxWaitMs: 3_600_000 } }
  }

  it('writes a new job of a group once: inserted with its place in the group; only the jobs it supersedes are written again', async () => {
    await (await open(100)).close?.()
    opened = []
    // Every later write of a job row, as the backend makes it, recorded beside the jobs in the same file.
    const db = openStateDb(join(dir, 'state.db'), 'normal')
    db.exec(`CREATE TABLE job_writes (id INTEGER NOT NULL);
      CREATE TRIGGER job_written AFTER UPDATE ON jobs BEGIN INSERT INTO job_writes (id) VALUES (NEW.id); END;`)
    db.close()

    const state = await open(100)
    const ids: string[] = []
    for (const id of ['a', 'b', 'c']) {
      const job = grouped(id, 7)
      const added = await state.queue.add(job, await state.dedup.reserve(job.dedupKey!))
      if (added.status === 'accepted') ids.push(added.id)
    }
    expect(ids).toHaveLength(3)
    const check = openStateDb(join(dir, 'state.db'), 'normal')
    const writes = check.prepare('SELECT id, count(*) AS n FROM job_writes GROUP BY id ORDER BY id').all()
    // a and b once each, when the next one superseded them; c, the newest, never after its insert.
    expect(writes).toEqual([{ id: Number(ids[0]), n: 1 }, { id: Number(ids[1]), n: 1 }])
    expect(check.prepare('SELECT covers, grp IS NOT NULL AS grouped, burst_at IS NOT NULL AS burst FROM jobs WHERE id = ?').get(Number(ids[2])))
      .toEqual({ covers: 3, grouped: 1, burst: 1 })
    check.close()
  })

  it('keeps statement journals in memory, never in a temporary file outside the state folder', () => {
    // Each job's write is a savepoint of its batch's transaction; joining a group changes more pages than
    // SQLite keeps in memory by default, and it would write the rest page by page to a file in /var/tmp
    // (half the cost of such an accept in a burst; a failed accept where that folder cannot be written).
    const db = openStateDb(join(dir, 'state.db'), 'normal')
    expect(db.pragma('temp_store', { simple: true })).toBe(2) // MEMORY
    db.close()
  })
})
