/**
 * The state-backend contract's cases about fair turns and expiry (a route's `fair_by` and
 * `start_within_seconds`): jobs of many fairness keys are leased round-robin, so a key with one job waits at
 * most one round behind a key with a hundred; and a job not started by its deadline ends `skipped` (expired)
 * without running.
 */
import { describe, expect } from 'vitest'
import type { AddResult, StateBackend } from '../core/jobs/lifecycle/state-backend.js'
import type { NewJob } from '../core/jobs/lifecycle/job-record.js'
import { EXPIRED } from '../core/jobs/lifecycle/transitions.js'
import { newJob } from './state-backend-harness.js'
import type { WritersCases } from './state-backend-writers.js'

/** What the cases need from the contract. */
export type FairnessCases = Pick<WritersCases, 'it' | 'setup' | 'recorder'>

/** The id of an accepted add. */
const idOf = (added: AddResult): string => (added.status === 'accepted' ? added.id : '')

/** Registers the cases. */
export function fairnessCases({ it, setup, recorder }: FairnessCases): void {
  const add = async (on: StateBackend, job: NewJob) => on.queue.add(job, await on.dedup.reserve(job.dedupKey ?? ''))
  const keyed = (id: string, fairKey: string): NewJob => ({ ...newJob(id), fairKey })

  describe('fair turns and expiry', () => {
    it('jobs are leased round-robin across fairness keys: the first of every key, then the second of every key', async () => {
      const { backend, settled } = await setup({ concurrency: 1 })
      for (const [id, key] of [['a1', 'A'], ['a2', 'A'], ['a3', 'A'], ['b1', 'B'], ['b2', 'B'], ['c1', 'C']] as const) await add(backend, keyed(id, key))
      const { leased, worker } = recorder()
      backend.queue.start(worker)
      await settled()
      expect(leased.map((j) => j.deliveryId)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3'])
      expect(leased.map((j) => j.fairKey)).toEqual(['A', 'B', 'C', 'A', 'B', 'A'])
    })

    it('with 100 jobs of one key queued before 1 of another, the other\'s job starts among the first `concurrency` leases', async () => {
      const concurrency = 4
      const { backend, settled } = await setup({ concurrency, maxQueue: 200 })
      for (let i = 0; i < 100; i++) await add(backend, keyed(`busy-${i}`, 'octo/busy'))
      await add(backend, keyed('quiet', 'octo/quiet'))
      const { leased, worker } = recorder()
      backend.queue.start(worker)
      await settled()
      expect(leased).toHaveLength(101)
      expect(leased.slice(0, concurrency).map((j) => j.deliveryId)).toContain('quiet')
      // The busy key's own jobs still go first come, first served.
      const busy = leased.map((j) => j.deliveryId).filter((id) => id.startsWith('busy-'))
      expect(busy).toEqual(Array.from({ length: 100 }, (_, i) => `busy-${i}`))
    })

    it('a job accepted while a key\'s backlog runs takes the round the queue is at, not the end of the backlog', async () => {
      const { backend, settled, clock } = await setup({ concurrency: 1 })
      for (let i = 0; i < 5; i++) await add(backend, keyed(`busy-${i}`, 'A'))
      const { leased, worker } = recorder(async (job) => {
        // While the backlog's second job runs, one job of another key arrives.
        if (job.job.deliveryId === 'busy-1') await add(backend, { ...keyed('late', 'B'), receivedAt: clock.now() })
        return { kind: 'done' }
      })
      backend.queue.start(worker)
      await settled()
      // The queue is at busy-2's round: the late job shares it, after the older job of that round.
      expect(leased.map((j) => j.deliveryId)).toEqual(['busy-0', 'busy-1', 'busy-2', 'late', 'busy-3', 'busy-4'])
    })

    it('a failed job queued again (an operator\'s retry, a redelivery) takes a new turn, after its key\'s queued jobs', async () => {
      const { backend, settled } = await setup({ concurrency: 1 })
      const old = await add(backend, keyed('old', 'A'))
      const redelivered = await add(backend, keyed('redelivered', 'A'))
      let release = () => {}
      const blocking = new Promise<void>((resolve) => (release = resolve))
      const { leased, worker } = recorder(async (job) => {
        const id = job.job.deliveryId
        const first = leased.filter((j) => j.deliveryId === id).length === 1
        if (first && (id === 'old' || id === 'redelivered')) return { kind: 'failed', reason: 'exit 1' }
        if (id === 'blocker') await blocking
        return { kind: 'done' }
      })
      backend.queue.start(worker)
      await settled()
      // The queue is empty: the rounds start again. While one job runs, A's new jobs take turns 0 and 1, and A's
      // failed jobs, queued again, the turns after them.
      await add(backend, keyed('blocker', 'Z'))
      await expect.poll(() => leased.map((j) => j.deliveryId)).toContain('blocker')
      await add(backend, keyed('a1', 'A'))
      await add(backend, keyed('a2', 'A'))
      expect(await backend.jobs.retry(idOf(old))).toMatchObject({ state: 'queued', turn: 2 })
      expect(await add(backend, keyed('redelivered', 'A'))).toMatchObject({ status: 'accepted', id: idOf(redelivered) })
      expect(await backend.jobs.get(idOf(old))).toMatchObject({ state: 'queued', turn: 2 })
      expect(await backend.jobs.get(idOf(redelivered))).toMatchObject({ state: 'queued', turn: 3 })
      await add(backend, keyed('b1', 'B'))
      release()
      await settled()
      expect(leased.map((j) => j.deliveryId)).toEqual(['old', 'redelivered', 'blocker', 'a1', 'b1', 'a2', 'old', 'redelivered'])
    })

    it('a job not started by its deadline ends skipped (expired) without running; one within it runs', async () => {
      const { backend, clock, settled } = await setup()
      const t = clock.now()
      const late = await add(backend, { ...newJob('late'), receivedAt: t, startBy: t + 60_000 })
      const fresh = await add(backend, { ...newJob('fresh'), receivedAt: t, startBy: t + 3_600_000 })
      clock.advance(61_000)
      const { leased, worker } = recorder()
      backend.queue.start(worker)
      await settled()
      await expect.poll(async () => (await backend.jobs.get(idOf(late)))?.state, { timeout: 5_000 }).toBe('skipped')
      expect((await backend.jobs.get(idOf(late)))?.note).toMatch(new RegExp(`^${EXPIRED}: not started within the route's start_within_seconds \\(60 s`))
      await expect.poll(async () => (await backend.jobs.get(idOf(fresh)))?.state, { timeout: 5_000 }).toBe('done')
      expect(leased.map((j) => j.deliveryId)).toEqual(['fresh'])
      expect(await backend.jobs.get(idOf(fresh))).toMatchObject({ startBy: t + 3_600_000 })
    })
  })
}
