/**
 * The writes the kit runs over a backend's store (core/jobs/worker/store-writes.ts), over the smallest store there is: a
 * Map in this file. Each case checks what the sequence wrote, what the add answered, and what it told the pool
 * and the reservation book, so a rule applied out of order, or a write left out, shows here before any backend.
 */
import { describe, expect, it } from 'vitest'
import type { AsyncJobStore, AsyncJobTransaction, JobStore, JobTransaction } from '../../src/core/jobs/worker/job-store.js'
import type { ReservationBook } from '../../src/core/jobs/worker/reservations.js'
import type { JobRecord, NewJob } from '../../src/core/jobs/lifecycle/job-record.js'
import type { Reservation } from '../../src/core/jobs/lifecycle/state-backend.js'
import { addJob, purgeJobs, retryJob, type AddContext } from '../../src/core/jobs/worker/store-writes.js'
import { isFinal, leased } from '../../src/core/jobs/lifecycle/transitions.js'
import { newJob } from '../../src/testing/state-backend.js'

const T = 10_000_000
const WINDOW = 1_000
const GROUP = { key: 'pr#1', debounceMs: 50, maxWaitMs: 500 }

/** A store of records in a Map; every primitive call is logged, and `failing` makes the next write throw. */
function tinyStore() {
  const jobs = new Map<string, { job: JobRecord; payload: string }>()
  let seq = 0
  const calls: string[] = []
  const state = { failing: false }
  const tx: JobTransaction<string> = {
    get: (id) => jobs.get(id)?.job,
    put(record) {
      calls.push(`put ${record.id} ${record.state}`)
      const kept = jobs.get(record.id)
      if (kept) kept.job = record
    },
    insert(record, payload) {
      const id = String(++seq)
      calls.push(`insert ${id}`)
      jobs.set(id, { job: { ...record, id }, payload })
      return id
    },
    holder: (key) => [...jobs.values()].find((e) => e.job.dedupKey === key)?.job,
    members: (group) => [...jobs.values()].map((e) => e.job).filter((j) => j.group === group && !isFinal(j.state)),
    newest: (group) => [...jobs.values()].map((e) => e.job).filter((j) => j.group === group).sort((a, b) => b.receivedAt - a.receivedAt)[0],
    queued: () => [...jobs.values()].filter((e) => e.job.state === 'queued').length,
    purge(cutoff) {
      let n = 0
      for (const [id, { job }] of jobs) {
        if (job.finishedAt !== undefined && job.finishedAt < (job.state === 'failed' ? cutoff.failedBefore : cutoff.doneBefore)) {
          jobs.delete(id)
          n++
        }
      }
      return n
    },
  }
  const store: JobStore<string> = {
    prepare: (job) => job.payloadJson,
    async transaction(work) {
      if (state.failing) throw new Error('the disk is full')
      return work(tx)
    },
  }
  return { store, tx, jobs, calls, state, set: (job: JobRecord) => jobs.set(job.id, { job, payload: '{}' }) }
}

/**
 * The same Map as an asynchronous store (a network database's shape): every primitive answers a promise, each
 * call is logged with its name, and the first `conflicts` transactions run their work, then roll back as a
 * serialization failure would, and run it again.
 */
function tinyAsyncStore(conflicts = 0) {
  const sync = tinyStore()
  const asked: string[] = []
  let left = conflicts
  const later = <A extends unknown[], R>(name: string, primitive: (...args: A) => R) => async (...args: A): Promise<R> => {
    asked.push(name)
    await new Promise((resolve) => setImmediate(resolve))
    return primitive(...args)
  }
  const tx: AsyncJobTransaction<string> = {
    get: later('get', sync.tx.get), put: later('put', sync.tx.put), insert: later('insert', sync.tx.insert), holder: later('holder', sync.tx.holder),
    members: later('members', sync.tx.members), newest: later('newest', sync.tx.newest), queued: later('queued', sync.tx.queued), purge: later('purge', sync.tx.purge),
  }
  const store: AsyncJobStore<string> = {
    awaits: true,
    prepare: (job) => job.payloadJson,
    async transaction(work) {
      for (;;) {
        const before = new Map([...sync.jobs].map(([id, e]) => [id, { ...e }]))
        const result = await work(tx)
        if (left-- <= 0) return result
        // Rolled back: the Map as it was, and the work runs again from its start.
        sync.jobs.clear()
        for (const [id, e] of before) sync.jobs.set(id, e)
        asked.push('rollback')
      }
    },
  }
  return { ...sync, store, asked }
}

/** A context whose pool and book record what they were told. */
function context(maxQueue = 10) {
  const told: string[] = []
  const book: ReservationBook = { reserve: () => Promise.reject(new Error('not used')), settle: (r) => void told.push(`settle ${r.key}`) }
  const ctx: AddContext = {
    maxQueue, windowMs: WINDOW, now: () => T, book,
    pool: { supersede: (id, by) => void told.push(`supersede ${id} by ${by}`), wake: () => void told.push('wake') },
  }
  return { ctx, told }
}

const reservation = (key: string): Reservation => ({ status: 'new', key, release: () => {} })
const grouped = (id: string, receivedAt: number): NewJob => ({ ...newJob(id), group: GROUP, receivedAt })

describe('one sequence, two kinds of store', () => {
  /** Adds four jobs of one group (one leased meanwhile), retries one and purges, recording what the store saw. */
  async function scenario(store: JobStore<string> | AsyncJobStore<string>, jobs: Map<string, { job: JobRecord }>, set: (job: JobRecord) => void) {
    const { ctx, told } = context()
    const answers: unknown[] = []
    answers.push(await addJob(store, grouped('a', T - 30), undefined, ctx))
    answers.push(await addJob(store, grouped('b', T - 20), undefined, ctx))
    set(leased(jobs.get('2')!.job, T - 10))
    answers.push(await addJob(store, grouped('c', T - 5), undefined, ctx))
    answers.push(await addJob(store, grouped('d', T - 1), undefined, ctx))
    answers.push(await addJob(store, grouped('d', T - 1), undefined, ctx))
    answers.push(await retryJob(store, '1', 'resume', () => T, ctx.pool))
    answers.push(await purgeJobs(store, T + 1, T + 2 * WINDOW, WINDOW))
    return { answers, told, records: [...jobs.values()].map((e) => e.job) }
  }

  it('an async store gets the same primitive calls in the same order, and ends with the same records and answers', async () => {
    const sync = tinyStore()
    const async = tinyAsyncStore()
    const bySync = await scenario(sync.store, sync.jobs, sync.set)
    const byAsync = await scenario(async.store, async.jobs, async.set)
    expect(byAsync).toEqual(bySync)
    expect(async.calls).toEqual(sync.calls)
    // Each write's first question is the key's holder, and a group's members are read before the job is inserted.
    expect(async.asked.slice(0, 4)).toEqual(['holder', 'queued', 'members', 'insert'])
  })

  it('a transaction an async store runs again (a conflict rolled back) runs the whole sequence again, from its first primitive', async () => {
    const async = tinyAsyncStore(1)
    const { ctx } = context()
    expect(await addJob(async.store, newJob('a'), undefined, ctx)).toEqual({ status: 'accepted', id: '2' })
    expect(async.asked).toEqual(['holder', 'queued', 'insert', 'rollback', 'holder', 'queued', 'insert'])
    expect([...async.jobs.keys()]).toEqual(['2'])
  })
})

describe('addJob over a store', () => {
  it('stores an accepted job with its key, wakes the pool and settles the reservation; a copy is then a duplicate', async () => {
    const { store, jobs } = tinyStore()
    const { ctx, told } = context()
    expect(await addJob(store, newJob('a'), reservation('pr\u0000a'), ctx)).toEqual({ status: 'accepted', id: '1' })
    expect(jobs.get('1')).toMatchObject({ job: { state: 'queued', dedupKey: 'pr\u0000a', notBefore: T }, payload: newJob('a').payloadJson })
    expect(told).toEqual(['wake', 'settle pr\u0000a'])
    expect(await addJob(store, newJob('a'), undefined, ctx)).toEqual({ status: 'duplicate', id: '1' })
    expect(jobs.size).toBe(1)
  })

  it('a full queue stores nothing and wakes no one, but the reservation is given back', async () => {
    const { store, jobs } = tinyStore()
    const { ctx, told } = context(1)
    await addJob(store, newJob('a'), undefined, ctx)
    told.length = 0
    expect(await addJob(store, newJob('b'), reservation('pr\u0000b'), ctx)).toEqual({ status: 'full' })
    expect(jobs.size).toBe(1)
    expect(told).toEqual(['settle pr\u0000b'])
  })

  it('a failed job holding the key is queued again in place; a done one past the window gives its key to a new job', async () => {
    const { store, jobs, set, calls } = tinyStore()
    const { ctx } = context()
    await addJob(store, newJob('a'), undefined, ctx)
    await addJob(store, newJob('b'), undefined, ctx)
    set({ ...jobs.get('1')!.job, state: 'failed', attempts: 3, finishedAt: T - 10, lastError: 'boom' })
    set({ ...jobs.get('2')!.job, state: 'done', finishedAt: T - WINDOW - 1 })
    calls.length = 0
    expect(await addJob(store, newJob('a'), undefined, ctx)).toEqual({ status: 'accepted', id: '1' })
    expect(jobs.get('1')?.job).toMatchObject({ state: 'queued', attempts: 0, finishedAt: undefined })
    expect(await addJob(store, newJob('b'), undefined, ctx)).toEqual({ status: 'accepted', id: '3' })
    expect(jobs.get('2')?.job).toMatchObject({ state: 'done', dedupKey: undefined })
    expect(jobs.get('3')?.job.dedupKey).toBe('pr\u0000b')
    // The key is given up before the new job is inserted (a unique index would refuse it otherwise).
    expect(calls).toEqual(['put 1 queued', 'put 2 done', 'insert 3'])
  })

  it('a new job of a group supersedes the queued one and outdates the running one, and the pool hears of the running one', async () => {
    const { store, jobs, set } = tinyStore()
    const { ctx, told } = context()
    await addJob(store, grouped('a', T - 30), undefined, ctx)
    await addJob(store, grouped('b', T - 20), undefined, ctx)
    // Job 2 superseded job 1; job 2 now runs.
    set(leased(jobs.get('2')!.job, T - 10))
    told.length = 0
    const added = await addJob(store, grouped('c', T - 5), undefined, ctx)
    expect(added).toEqual({ status: 'accepted', id: '3', superseded: [] })
    expect(jobs.get('1')?.job).toMatchObject({ state: 'superseded', supersededBy: '2' })
    expect(jobs.get('2')?.job).toMatchObject({ state: 'running', supersededBy: '3' })
    expect(jobs.get('3')?.job).toMatchObject({ state: 'queued', group: GROUP.key, covers: 1, notBefore: T + GROUP.debounceMs })
    expect(told).toEqual(['supersede 2 by 3', 'wake'])
    // A fourth job supersedes the queued third, covering its event, and names it as ended.
    const fourth = await addJob(store, grouped('d', T - 1), undefined, ctx)
    expect(fourth).toMatchObject({ status: 'accepted', id: '4', superseded: [{ id: '3', state: 'superseded' }] })
    expect(jobs.get('4')?.job.covers).toBe(2)
  })

  it('a write the store refuses rejects the add, and still gives the reservation back', async () => {
    const { store, state } = tinyStore()
    const { ctx, told } = context()
    state.failing = true
    await expect(addJob(store, newJob('a'), reservation('pr\u0000a'), ctx)).rejects.toThrow('the disk is full')
    expect(told).toEqual(['settle pr\u0000a'])
  })
})

describe('retryJob and purgeJobs over a store', () => {
  it('an operator retry of a job whose group has a newer job ends it superseded; one without resumes', async () => {
    const { store, jobs, set } = tinyStore()
    const { ctx, told } = context()
    await addJob(store, grouped('a', T - 30), undefined, ctx)
    await addJob(store, newJob('x'), undefined, ctx)
    set({ ...jobs.get('1')!.job, state: 'failed', finishedAt: T - 5 })
    set({ ...jobs.get('2')!.job, state: 'failed', finishedAt: T - 5 })
    await addJob(store, grouped('b', T - 20), undefined, ctx)
    told.length = 0
    expect(await retryJob(store, '1', 'resume', ctx.now, ctx.pool)).toMatchObject({ id: '1', state: 'superseded', supersededBy: '3' })
    expect(await retryJob(store, '2', 'resume', ctx.now, ctx.pool)).toMatchObject({ id: '2', state: 'queued' })
    expect(await retryJob(store, '9', 'resume', ctx.now, ctx.pool)).toBeUndefined()
    await expect(retryJob(store, '3', 'resume', ctx.now, ctx.pool)).rejects.toThrow(/only a finished job/)
    expect(told).toEqual(['wake', 'wake'])
  })

  it('purge never deletes a done job inside the de-dup window', async () => {
    const { store, jobs, set } = tinyStore()
    const { ctx } = context()
    await addJob(store, newJob('a'), undefined, ctx)
    await addJob(store, newJob('b'), undefined, ctx)
    set({ ...jobs.get('1')!.job, state: 'done', finishedAt: T - WINDOW - 1 })
    set({ ...jobs.get('2')!.job, state: 'done', finishedAt: T - 1 })
    expect(await purgeJobs(store, T, T, WINDOW)).toBe(1)
    expect([...jobs.keys()]).toEqual(['2'])
  })
})
