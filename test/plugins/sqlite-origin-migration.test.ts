/**
 * Schema step 6 (a job's link and hook): a file written at version 5 opens, its jobs read with neither, find
 * answers them through the de-dup key's index, and a job accepted afterwards keeps both.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, expect, it } from 'vitest'
import type { StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
import { silentLogger } from '../../src/core/log/logger.js'
import { newJob } from '../../src/testing/state-backend-harness.js'
import { sqliteState } from '../../src/plugins/state/sqlite/sqlite-state.js'
import { SCHEMA_VERSION } from '../../src/plugins/state/sqlite/schema.js'

let dir: string
let state: StateBackend | undefined
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hookpilot-sqlite-v6-'))
})
afterEach(async () => {
  await state?.close?.()
  state = undefined
  await rm(dir, { recursive: true, force: true })
})

async function open(path: string): Promise<StateBackend> {
  const opened = sqliteState({ path, concurrency: 1, maxQueue: 10 })
  await opened.start?.({ log: silentLogger })
  return opened
}

it('a version 5 file gains nullable link and hook columns; its jobs have neither, new jobs keep both', async () => {
  const path = join(dir, 'state.db')
  // A version 5 file with one job: the current schema less this step's columns, as version 5 left it.
  state = await open(path)
  await state.queue.add(newJob('old'), await state.dedup.reserve('pr\u0000old'))
  await state.close?.()
  const v5 = new Database(path)
  // The later steps undone too (notes; fair turns and the start deadline; usage), so that they run again after it.
  v5.exec(`ALTER TABLE jobs DROP COLUMN usage; DROP INDEX jobs_turn; DROP INDEX jobs_fair_key; ALTER TABLE jobs DROP COLUMN fair_key; ALTER TABLE jobs DROP COLUMN turn;
    ALTER TABLE jobs DROP COLUMN start_by; DROP TABLE notes;
    ALTER TABLE jobs DROP COLUMN link; ALTER TABLE jobs DROP COLUMN hook; PRAGMA user_version = 5;`)
  v5.close()

  state = await open(path)
  const old = await state.jobs.find('pr', 'old')
  expect([old?.deliveryId, old?.link, old?.hook]).toEqual(['old', undefined, undefined])
  const link = 'https://gitlab.example.com/group/project/-/merge_requests/3'
  await state.queue.add({ ...newJob('new'), link, hook: 'orgs/octo-org/hooks/77' }, await state.dedup.reserve('pr\u0000new'))
  expect(await state.jobs.find('pr', 'new')).toMatchObject({ link, hook: 'orgs/octo-org/hooks/77' })

  const db = new Database(path, { readonly: true })
  expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
  // find reads one row through the de-dup key's unique index, never a scan of the table.
  const plan = db.prepare('EXPLAIN QUERY PLAN SELECT * FROM jobs WHERE dedup_key = ?').all('pr\u0000new') as Array<{ detail: string }>
  expect(plan.map((p) => p.detail).join(' ')).toContain('SEARCH jobs USING INDEX jobs_dedup_key')
  db.close()
})
