/**
 * The group commit on a full file (issue 25, item 19): SQLITE_FULL rolls back the whole transaction, not the
 * one write's savepoint. SQLite's `max_page_count` fails a write that would grow the file past it exactly as
 * a full disk does.
 */
import Database from 'better-sqlite3'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { groupCommit } from '../../src/plugins/state/sqlite/writer.js'

it('a batch with a write that fills the file stores none of its writes and fails each with SQLITE_FULL', async () => {
  const db = new Database(join(await mkdtemp(join(tmpdir(), 'hookpilot-full-')), 'state.db'))
  db.pragma('journal_mode = WAL')
  db.exec('CREATE TABLE t (b BLOB)')
  db.pragma(`max_page_count = ${(db.pragma('page_count', { simple: true }) as number) + 3}`)
  const heard: unknown[] = []
  const writer = groupCommit(db, (err) => heard.push((err as { code?: unknown }).code))
  const insert = db.prepare<[Buffer]>('INSERT INTO t VALUES (?)')
  const write = (bytes: number) => writer.run(() => insert.run(Buffer.alloc(bytes)).changes)
  // One turn of the event loop: one transaction. Before, the third write ran outside the rolled-back
  // transaction and committed by itself, while every caller heard "cannot commit - no transaction is active".
  const results = await Promise.allSettled([write(100), write(100_000), write(10)])
  expect(results.map((r) => r.status === 'rejected' && (r.reason as { code?: unknown }).code)).toEqual(['SQLITE_FULL', 'SQLITE_FULL', 'SQLITE_FULL'])
  expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 0 })
  expect(heard).toEqual(['SQLITE_FULL'])
  // The file still takes what fits.
  await expect(write(100)).resolves.toBe(1)
  db.close()
})
