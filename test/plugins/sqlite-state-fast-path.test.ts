/**
 * What the SQLite backend's accept and lease paths keep in memory to stay fast, checked against the file: the
 * queued count behind max_queue.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { JobOutcome, NewJob, StateBackend } from '../../src/core/jobs.js'
import { silentLogger } from '../../src/core/logger.js'
import { sqliteState } from '../../src/plugins/sqlite-state/index.js'

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
  return state.queue.add(job, await state.dedup.reserve(job.dedupKey!, 3_600_000))
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
