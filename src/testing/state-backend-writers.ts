/**
 * The state-backend contract's cases about several writers of one store: a redelivery racing an operator's
 * retry, a live holder at the write, two instances (one job per delivery, max_queue never overshot), the
 * crash-loop rule across process lives, the fencing of a try whose lease another worker took, and the
 * retention rule. What every backend must do the same way, because the lifecycle decides it.
 */
import { describe, expect } from 'vitest'
import type { LeasedJob, StateBackend } from '../core/jobs/lifecycle/state-backend.js'
import { MAX_RUNS } from '../core/jobs/lifecycle/transitions.js'
import { newJob, parked, type contractWorld, type StateBackendHarness } from './state-backend-harness.js'

type World = ReturnType<typeof contractWorld>

/** What the cases need from the contract. */
export interface WritersCases {
  readonly harness: StateBackendHarness
  /** The contract's `it`, which lists a case the harness says it `cannot` meet as skipped with its reason. */
  readonly it: (title: string, fn: () => Promise<void>) => void
  readonly setup: World['setup']
  readonly recorder: World['recorder']
  readonly peer: World['peer']
  readonly GAP: World['GAP']
}

/** Registers the cases. */
export function writersCases({ harness, it, setup, recorder, peer, GAP }: WritersCases): void {
  describe('one lifecycle, whoever writes', () => {
    it('a redelivery racing an operator retry is a duplicate, and leaves the job as the retry queued it', async () => {
      const { backend, accept, settled } = await setup()
      const added = await accept('race')
      backend.queue.start(recorder(async (job) => {
        if (job.job.attempts === 1 && job.job.stage === 'run') {
          await job.saveAnswer('the answer')
          return { kind: 'failed', reason: 'gh: not authenticated' }
        }
        return parked(job) // the retried job stays running while the copy arrives
      }).worker)
      await settled()
      const id = added.status === 'accepted' ? added.id : ''
      const redelivery = await backend.dedup.reserve('pr\u0000race')
      expect(redelivery).toMatchObject({ status: 'redeliver', jobId: id })
      const retried = await backend.jobs.retry(id)
      expect(await backend.queue.add(newJob('race'), redelivery)).toEqual({ status: 'duplicate', id })
      const now = await backend.jobs.get(id)
      expect(now).toMatchObject({ stage: 'deliver', answer: 'the answer', lastError: 'gh: not authenticated' })
      expect(now?.state === 'queued' || now?.state === 'running').toBe(true)
      expect(retried?.attempts).toBe(0)
      expect((await backend.jobs.list()).length).toBe(1)
    })

    it('a delivery whose key a live job holds by the time it is stored is a duplicate', async () => {
      const { backend, accept } = await setup()
      const added = await accept('live')
      // Stored without the reservation a request makes (as a writer that never saw this one's would): the
      // write itself finds the queued job holding the key.
      expect(await backend.queue.add(newJob('live'))).toEqual({ status: 'duplicate', id: added.status === 'accepted' ? added.id : '' })
      expect((await backend.jobs.list()).length).toBe(1)
    })

    // A second instance on one store: only where the harness opens one (`peer`).
    if (harness.peer) {
      it('two instances reserving one delivery at once store one job', async () => {
        const { backend, options } = await setup()
        const other = await peer(backend, options)
        const request = async (on: StateBackend) => on.queue.add(newJob('twice'), await on.dedup.reserve('pr\u0000twice'))
        const added = await Promise.all([request(backend), request(other), request(backend), request(other)])
        expect(added.filter((r) => r.status === 'accepted')).toHaveLength(1)
        expect((await backend.jobs.list()).map((j) => j.deliveryId)).toEqual(['twice'])
      })

      it('max_queue is never overshot by two instances adding at once', async () => {
        const { backend, options } = await setup({ maxQueue: 5 })
        const other = await peer(backend, options)
        const results = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? backend : other).queue.add(newJob(`m${i}`))))
        expect(results.filter((r) => r.status === 'accepted')).toHaveLength(5)
        expect(results.filter((r) => r.status === 'full')).toHaveLength(19)
        expect((await backend.jobs.counts()).queued).toBe(5)
      })
    }

    // A takeover: a second instance finds the first one dead (not where a live one cannot be, `takeover: false`).
    if (harness.peer && harness.takeover !== false) {
      it('a job whose worker died is recovered and counted; past MAX_RUNS starts it fails with one reason, unrun', async () => {
        const { backend, accept, options } = await setup({ concurrency: 1 })
        const added = await accept('loop')
        const id = added.status === 'accepted' ? added.id : ''
        let runs = 0
        /** A worker that runs until its lease is lost, as an agent on a gateway that dies would (forever). */
        const hang = async (job: LeasedJob) => {
          runs++
          return parked(job)
        }
        backend.queue.start(hang)
        await expect.poll(() => runs).toBe(1)
        for (let life = 2; life <= MAX_RUNS + 1; life++) {
          // A new process on the store: the previous one is dead to it, so its job is recovered and leased again.
          const next = await peer(backend, options)
          next.queue.start(hang)
          await expect.poll(async () => (await next.jobs.get(id))?.attempts, { timeout: 5_000 }).toBe(Math.min(life, MAX_RUNS + 1))
          if (life <= MAX_RUNS) await expect.poll(() => runs).toBe(life)
        }
        await expect.poll(async () => (await backend.jobs.get(id))?.state, { timeout: 5_000 }).toBe('failed')
        expect(runs).toBe(MAX_RUNS)
        expect((await backend.jobs.get(id))?.lastError).toMatch(new RegExp(`stopped during each of ${MAX_RUNS} runs`))
      })

      it('a job whose worker died goes before the jobs queued after it, and every start of its agent counts', async () => {
        const { backend, accept, options, clock } = await setup({ concurrency: 1 })
        const added = await accept('cut-off')
        const id = added.status === 'accepted' ? added.id : ''
        let started = false
        backend.queue.start(async (job) => {
          started = true
          return parked(job) // its gateway dies during the run
        })
        await expect.poll(() => started).toBe(true)
        clock.advance(GAP)
        for (const later of ['later-1', 'later-2', 'later-3']) await accept(later)
        clock.advance(4 * GAP) // the recovery comes after them (and after any lease of 30 s): a job due from then would run last
        const next = await peer(backend, options)
        const order: string[] = []
        next.queue.start(async (job) => {
          order.push(job.job.deliveryId)
          if (job.job.stage === 'run') await job.saveAnswer('the answer')
          return { kind: 'done' }
        })
        await expect.poll(() => order.length, { timeout: 5_000 }).toBe(4)
        expect(order[0]).toBe('cut-off')
        // Its agent started twice; storing the answer began the delivery's tries afresh, not the count of runs.
        expect(await next.jobs.get(id)).toMatchObject({ state: 'done', stage: 'deliver', runs: 2, attempts: 1 })
      })

      it('a try whose lease another worker took writes nothing more, and its confirmLease rejects', async () => {
        const { backend, accept, options } = await setup({ concurrency: 1 })
        const added = await accept('fenced')
        const id = added.status === 'accepted' ? added.id : ''
        let first: LeasedJob | undefined
        backend.queue.start(async (job) => {
          first = job
          return parked(job) // never ends by itself: a frozen worker
        })
        await expect.poll(() => first).toBeDefined()
        const other = await peer(backend, options)
        let second: LeasedJob | undefined
        other.queue.start(async (job) => {
          second = job
          await job.saveAnswer('the new owner')
          return parked(job)
        })
        await expect.poll(() => second).toBeDefined()
        await expect.poll(async () => (await backend.jobs.get(id))?.answer).toBe('the new owner')
        await expect(first?.confirmLease()).rejects.toThrow(/lease on job .* was lost/)
        await expect(first?.saveAnswer('the old owner')).rejects.toThrow(/lease on job .* was lost/)
        expect(first?.signal.aborted).toBe(true)
        expect(await backend.jobs.get(id)).toMatchObject({ answer: 'the new owner', state: 'running' })
        await expect(second?.confirmLease()).resolves.toBeUndefined()
      })
    }

    it('refuses a retention of done jobs shorter than the de-dup window', async () => {
      const { options } = await setup()
      expect(() => harness.make({ ...options, keepDoneMs: options.dedupWindowMs - 1 })).toThrow(/shorter than the de-dup window/)
    })
  })
}
