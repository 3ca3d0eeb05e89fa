/**
 * The state-backend contract's de-dup cases: a key is a state machine over its job (held while the job is queued,
 * running, or done within the window; given to a redelivery when it failed), copies wait for the holder, and a
 * refused request gives its key back.
 */
import { describe, expect } from 'vitest'
import { newJob, type contractWorld } from './state-backend-harness.js'
import type { WritersCases } from './state-backend-writers.js'

/** Registers the cases. */
export function dedupCases({ it, setup, recorder, timedRecorder, WINDOW, RETRY }: Pick<WritersCases, 'it' | 'setup' | 'recorder'> & Pick<ReturnType<typeof contractWorld>, 'WINDOW' | 'RETRY' | 'timedRecorder'>): void {
  describe('de-dup', () => {
    it('a new key is accepted once; its next reservation is a duplicate naming the job', async () => {
      const { backend, accept } = await setup()
      const added = await accept('a')
      expect(added.status).toBe('accepted')
      const again = await backend.dedup.reserve('pr\u0000a')
      expect(again).toMatchObject({ status: 'duplicate', jobId: added.status === 'accepted' ? added.id : '' })
    })

    it('of 100 concurrent copies one holds the key; the others wait for it, and are duplicates once its job is stored', async () => {
      const { backend } = await setup()
      const first = await backend.dedup.reserve('pr\u0000burst')
      expect(first.status).toBe('new')
      const copies = Promise.all(Array.from({ length: 99 }, () => backend.dedup.reserve('pr\u0000burst')))
      expect((await backend.jobs.counts()).queued).toBe(0)
      await backend.queue.add(newJob('burst'), first)
      const answers = await copies
      expect(answers.every((r) => r.status === 'duplicate')).toBe(true)
      expect((await backend.jobs.list()).map((j) => j.deliveryId)).toEqual(['burst'])
    })

    it('a copy that waited for a request that stored nothing (refused 429 or 503) is not told duplicate: it holds the key', async () => {
      const { backend } = await setup()
      const first = await backend.dedup.reserve('pr\u0000refused')
      if (first.status === 'duplicate') throw new Error('expected a holder')
      const copy = backend.dedup.reserve('pr\u0000refused')
      first.release()
      const second = await copy
      expect(second.status).toBe('new')
      expect(await backend.queue.add(newJob('refused'), second)).toMatchObject({ status: 'accepted' })
      expect((await backend.dedup.reserve('pr\u0000refused')).status).toBe('duplicate')
    })

    it('a done job holds its key for the window after it finished, then a redelivery is a new job', async () => {
      const { backend, accept, clock, settled } = await setup()
      const first = await accept('w')
      backend.queue.start(recorder().worker)
      await settled()
      const finishedAt = (await backend.jobs.get(first.status === 'accepted' ? first.id : ''))?.finishedAt ?? NaN
      clock.advance(finishedAt + WINDOW - 1 - clock.now())
      expect((await backend.dedup.reserve('pr\u0000w')).status).toBe('duplicate')
      clock.advance(finishedAt + WINDOW - clock.now())
      const second = await accept('w')
      expect(second.status).toBe('accepted')
      expect(second).not.toEqual(first)
      const old = await backend.jobs.get(first.status === 'accepted' ? first.id : '')
      expect(old?.dedupKey).toBeUndefined() // the key moved to the new job
    })

    it('a failed job gives its key to a redelivery, which queues the same job again at the stage it failed in', async () => {
      const { backend, accept, settled } = await setup()
      const added = await accept('f')
      let tries = 0
      backend.queue.start(recorder(async (job) => {
        tries++
        if (tries === 1) {
          await job.saveAnswer('the answer')
          return { kind: 'failed', reason: 'gh: not authenticated' }
        }
        return { kind: 'done' }
      }).worker)
      await settled()
      const failed = await backend.jobs.get(added.status === 'accepted' ? added.id : '')
      expect(failed).toMatchObject({ state: 'failed', stage: 'deliver', answer: 'the answer', lastError: 'gh: not authenticated' })
      const redelivery = await backend.dedup.reserve('pr\u0000f')
      expect(redelivery).toMatchObject({ status: 'redeliver', jobId: failed?.id })
      expect(await backend.queue.add(newJob('f'), redelivery)).toEqual({ status: 'accepted', id: failed?.id })
      await settled()
      expect(await backend.jobs.get(failed?.id ?? '')).toMatchObject({ state: 'done', stage: 'deliver', answer: 'the answer' })
      expect(tries).toBe(2)
      expect((await backend.jobs.list()).length).toBe(1)
    })

    it('a redelivery of a failed job over the rate limit (added with `runAt`) queues it again for that moment, not at once', async () => {
      const { backend, accept, settled, clock } = await setup()
      const added = await accept('late')
      const { leased, worker } = recorder(() => (leased.length === 1 ? { kind: 'failed', reason: 'exit 1' } : { kind: 'done' }))
      backend.queue.start(worker)
      await settled()
      const id = added.status === 'accepted' ? added.id : ''
      expect(await backend.jobs.get(id)).toMatchObject({ state: 'failed' })
      const runAt = clock.now() + RETRY
      const redelivery = await backend.dedup.reserve('pr\u0000late')
      expect(await backend.queue.add({ ...newJob('late'), runAt }, redelivery)).toEqual({ status: 'accepted', id })
      expect(await backend.jobs.get(id)).toMatchObject({ attempts: 0, notBefore: runAt })
      await new Promise((resolve) => setTimeout(resolve, 30))
      expect(leased).toHaveLength(1) // not before its booked moment
      // (A backend whose queue hands the job out and puts it back until its time may show it running a moment.)
      await expect.poll(async () => (await backend.jobs.get(id))?.state).toBe('queued')
      expect(await backend.jobs.get(id)).toMatchObject({ attempts: 0, notBefore: runAt })
    })

    it('a failed job queued again for its booked moment runs once the clock reaches it', async () => {
      const { backend, accept, settled, clock, DELAY, reach, dueWithin } = await setup({}, { delays: true })
      const added = await accept('booked')
      const { leased, leasedAt, worker } = timedRecorder(clock, () => (leased.length === 1 ? { kind: 'failed', reason: 'exit 1' } : { kind: 'done' }))
      backend.queue.start(worker)
      await settled()
      const runAt = clock.now() + DELAY
      await backend.queue.add({ ...newJob('booked'), runAt }, await backend.dedup.reserve('pr\u0000booked'))
      reach(runAt)
      await expect.poll(() => leased.length, dueWithin).toBe(2)
      expect(leasedAt[1]).toBeGreaterThanOrEqual(runAt) // not before its booked moment
      await settled()
      expect(await backend.jobs.get(added.status === 'accepted' ? added.id : '')).toMatchObject({ state: 'done' })
    })

    it('a job without a de-dup key (a timestamp id) is always accepted', async () => {
      const { backend } = await setup()
      const results = await Promise.all([backend.queue.add(newJob('t', false)), backend.queue.add(newJob('t', false))])
      expect(results.map((r) => r.status)).toEqual(['accepted', 'accepted'])
    })

    it('refuses past maxQueue waiting jobs, storing nothing and giving the key back', async () => {
      const { backend, accept } = await setup({ maxQueue: 2 })
      expect((await accept('q1')).status).toBe('accepted')
      expect((await accept('q2')).status).toBe('accepted')
      expect(await accept('q3')).toEqual({ status: 'full' })
      expect((await backend.jobs.counts()).queued).toBe(2)
      expect((await backend.dedup.reserve('pr\u0000q3')).status).toBe('new')
    })
  })
}
