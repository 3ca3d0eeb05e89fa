/**
 * The contract every {@link StateBackend} honours (memory, SQLite, Redis, and any a plugin ships): de-dup as a
 * state machine over jobs, a queue that leases, retries at a time and stops within a grace period, and the jobs
 * view. Time is a seam: the suite moves a fake clock (`options.now`) and the backend's pool polls every few
 * milliseconds; a backend whose delayed jobs fall due on the machine's clock (`clock: 'machine'`) has those
 * cases run on it, with short delays the suite waits for. A case that needs what the harness does not give
 * (a `peer`, a takeover, a restart) does not apply and is not registered; one the harness says it `cannot`
 * meet is listed as skipped with its reason. Its world is in state-backend-harness.ts.
 */
import { afterEach, describe, expect, it as test } from 'vitest'
import type { JobOutcome } from '../core/jobs/lifecycle/state-backend.js'
import type { RetryMode } from '../core/jobs/lifecycle/jobs-view.js'
import { contractWorld, newJob, type StateBackendHarness } from './state-backend-harness.js'
import { dedupCases } from './state-backend-dedup.js'
import { groupCases } from './state-backend-groups.js'
import { fairnessCases } from './state-backend-fairness.js'
import { closingCases } from './state-backend-closing.js'
import { notesCases } from './state-backend-notes.js'
import { originCases } from './state-backend-origin.js'
import { replayCases } from './state-backend-replay.js'
import { writersCases } from './state-backend-writers.js'

export { newJob, type BackendOptions, type StateBackendHarness } from './state-backend-harness.js'

/** Runs the state-backend contract. */
export function stateBackendContract(name: string, harness: StateBackendHarness): void {
  describe(`${name} (StateBackend contract)`, () => {
    const { WINDOW, RETRY, GAP, setup, recorder, timedRecorder, heldAWhile, restart, peer, closeAll } = contractWorld(harness)
    afterEach(closeAll)
    /** A case, or, when the harness says this backend cannot meet it, the case listed as skipped with why. */
    const it = (title: string, fn: () => Promise<void>) => {
      const reason = harness.cannot?.[title]
      if (reason === undefined) test(title, fn)
      else test.skip(`${title} (cannot: ${reason})`, fn)
    }

    dedupCases({ it, setup, recorder, timedRecorder, WINDOW, RETRY })

    describe('queue', () => {
      it('runs each job once, counting one attempt per lease, and stores done with its finish time', async () => {
        const { backend, accept, settled, clock } = await setup()
        const before = clock.now()
        for (const id of ['a', 'b', 'c']) await accept(id)
        const { leased, worker } = recorder()
        backend.queue.start(worker)
        await settled()
        expect(leased.map((j) => j.deliveryId).sort()).toEqual(['a', 'b', 'c'])
        expect(leased.map((j) => [j.state, j.attempts])).toEqual([['running', 1], ['running', 1], ['running', 1]])
        const done = await backend.jobs.list({ state: 'done' })
        expect(done).toHaveLength(3)
        expect(done.every((j) => j.finishedAt !== undefined && j.finishedAt >= before && j.finishedAt <= clock.now())).toBe(true)
      })

      it('runs at most `concurrency` jobs at once', async () => {
        const { backend, accept, settled } = await setup({ concurrency: 2 })
        for (let i = 0; i < 6; i++) await accept(`c${i}`)
        let running = 0
        let peak = 0
        backend.queue.start(async () => {
          running++
          peak = Math.max(peak, running)
          await new Promise((resolve) => setTimeout(resolve, 10))
          running--
          return { kind: 'done' }
        })
        await settled()
        expect(peak).toBe(2)
        expect((await backend.jobs.counts()).done).toBe(6)
      })

      it('holds a job answered `retry` until its time, then leases it again with the answer and progress it saved', async () => {
        const { backend, accept, settled, clock, DELAY, reach, dueWithin } = await setup({}, { delays: true })
        await accept('r')
        let at = 0
        const { leased, leasedAt, worker } = timedRecorder(clock, async (job) => {
          if (job.job.attempts > 1) return { kind: 'done' }
          await job.saveAnswer('stored')
          await job.saveProgress(2)
          at = clock.now() + DELAY
          return { kind: 'retry', at, reason: 'HTTP 503' }
        })
        backend.queue.start(worker)
        await expect.poll(() => leased.length).toBe(1)
        await settled()
        const waiting = (await backend.jobs.list())[0]
        expect(waiting).toMatchObject({ state: 'queued', stage: 'deliver', answer: 'stored', progress: 2, lastError: 'HTTP 503', notBefore: at })
        await heldAWhile(clock, at, leased, 1)
        reach(at)
        await expect.poll(() => leased.length, dueWithin).toBe(2)
        expect(leasedAt[1]).toBeGreaterThanOrEqual(at) // not before its time
        expect(leased[1]).toMatchObject({ stage: 'deliver', answer: 'stored', progress: 2, attempts: 2 })
        await settled()
        expect((await backend.jobs.list())[0]?.state).toBe('done')
      })

      it('keeps what the runs used with the job, summed, through to its end', async () => {
        const { backend, accept, settled } = await setup()
        await accept('u')
        backend.queue.start(recorder(async (job) => {
          await job.saveUsage({ model: 'm', inputTokens: 100, outputTokens: 10, cachedTokens: 40, costUsd: 0.5 })
          await job.saveAnswer('the answer')
          await job.saveUsage({ model: 'm', inputTokens: 100, outputTokens: 10, cachedTokens: 40, costUsd: 0.5 })
          return { kind: 'done' }
        }).worker)
        await settled()
        const [job] = await backend.jobs.list()
        expect(job).toMatchObject({ state: 'done', answer: 'the answer', usage: { model: 'm', inputTokens: 200, outputTokens: 20, cachedTokens: 80, costUsd: 1 } })
        expect((await backend.jobs.get(job?.id ?? ''))?.usage).toEqual(job?.usage)
      })

      it('holds a job answered `wait` until its time, neither its try nor its run counted', async () => {
        const { backend, accept, settled, clock, DELAY, reach, dueWithin } = await setup({}, { delays: true })
        await accept('w')
        let at = 0
        const { leased, leasedAt, worker } = timedRecorder(clock, async () => {
          if (leased.length > 1) return { kind: 'done' }
          at = clock.now() + DELAY
          return { kind: 'wait', at, reason: 'the model API\'s requests per minute are used up' }
        })
        backend.queue.start(worker)
        await expect.poll(() => leased.length).toBe(1)
        await settled()
        expect((await backend.jobs.list())[0]).toMatchObject({ state: 'queued', attempts: 0, runs: 0, notBefore: at })
        await heldAWhile(clock, at, leased, 1)
        reach(at)
        await expect.poll(() => leased.length, dueWithin).toBe(2)
        expect(leasedAt[1]).toBeGreaterThanOrEqual(at) // not before its time
        expect(leased[1]).toMatchObject({ attempts: 1, runs: 1 })
        await settled()
      })

      it('holds a deferred job (added with `runAt`, the moment its rate limit booked) until then', async () => {
        const { backend, clock, settled, DELAY, reach, dueWithin } = await setup({}, { delays: true })
        const runAt = clock.now() + DELAY
        await backend.queue.add({ ...newJob('deferred'), runAt }, await backend.dedup.reserve('pr\u0000deferred'))
        const { leased, leasedAt, worker } = timedRecorder(clock)
        backend.queue.start(worker)
        expect((await backend.jobs.list())[0]).toMatchObject({ state: 'queued', notBefore: runAt })
        await heldAWhile(clock, runAt, leased, 0)
        reach(runAt)
        await expect.poll(() => leased.length, dueWithin).toBe(1)
        expect(leasedAt[0]).toBeGreaterThanOrEqual(runAt) // not before its time
        await settled()
      })

      it('stores a failed outcome with its reason, and a worker that throws as failed', async () => {
        const { backend, accept, settled } = await setup()
        await accept('x')
        await accept('y')
        backend.queue.start(async (job) => {
          if (job.job.deliveryId === 'x') return { kind: 'failed', reason: 'exit 1' }
          throw new Error('kaboom')
        })
        await settled()
        const jobs = await backend.jobs.list({ state: 'failed' })
        expect(jobs.map((j) => [j.deliveryId, j.lastError]).sort()).toEqual([['x', 'exit 1'], ['y', 'the worker threw: kaboom']])
      })

      it('a job added just before stop is never left running: it ran, or it is queued with its try uncounted', async () => {
        const { backend, accept } = await setup()
        await accept('late')
        backend.queue.start(recorder().worker)
        await backend.queue.stop(0)
        const [job] = await backend.jobs.list()
        expect(job?.state).not.toBe('running')
        if (job?.state === 'queued') expect(job.attempts).toBe(0)
      })

      it('stop waits for running jobs within the grace period', async () => {
        const { backend, accept } = await setup()
        await accept('s')
        let finished = false
        let release = () => {}
        backend.queue.start(async () => {
          await new Promise<void>((resolve) => (release = resolve))
          finished = true
          return { kind: 'done' }
        })
        await expect.poll(async () => (await backend.jobs.counts()).running).toBe(1)
        const stopping = backend.queue.stop(5_000)
        setTimeout(() => release(), 30)
        expect(await stopping).toEqual({ finished: true, left: 0 })
        expect(finished).toBe(true)
      })

      it('past the grace period stop aborts running jobs; an interrupted job is queued again, its try not counted', async () => {
        const { backend, accept } = await setup({ concurrency: 1 })
        await accept('long')
        await accept('waiting')
        backend.queue.start((job) => new Promise<JobOutcome>((resolve) => {
          job.signal.addEventListener('abort', () => resolve({ kind: 'interrupted' }))
        }))
        await expect.poll(async () => (await backend.jobs.counts()).running).toBe(1)
        expect(await backend.queue.stop(20)).toEqual({ finished: false, left: 2 })
        const jobs = await backend.jobs.list()
        expect(jobs.map((j) => [j.deliveryId, j.state, j.attempts])).toEqual([['waiting', 'queued', 0], ['long', 'queued', 0]])
      })
    })

    describe('jobs view', () => {
      it('lists newest first, by state, by route, up to a limit; get answers undefined for an unknown id', async () => {
        const { backend, accept } = await setup()
        for (const id of ['1', '2', '3']) await accept(id)
        await backend.queue.add({ ...newJob('other'), route: 'ci', dedupKey: 'ci\u0000other' })
        expect((await backend.jobs.list()).map((j) => j.deliveryId)).toEqual(['other', '3', '2', '1'])
        expect((await backend.jobs.list({ route: 'pr', limit: 2 })).map((j) => j.deliveryId)).toEqual(['3', '2'])
        expect(await backend.jobs.list({ state: 'failed' })).toEqual([])
        expect(await backend.jobs.get('no-such-job')).toBeUndefined()
        expect(await backend.jobs.counts()).toEqual({ queued: 4, running: 0, done: 0, failed: 0, skipped: 0, superseded: 0 })
      })

      it('retry: a failed job resumes where it failed, a done one runs from the start, a queued one is refused', async () => {
        const { backend, accept, settled } = await setup()
        const a = await accept('a')
        const b = await accept('b')
        const ids = [a, b].map((r) => (r.status === 'accepted' ? r.id : ''))
        const { leased, worker } = recorder(async (job) => {
          if (job.job.attempts === 1 && job.job.deliveryId === 'a' && job.job.stage === 'run') {
            await job.saveAnswer('answer a')
            return { kind: 'failed', reason: 'delivery failed' }
          }
          if (job.job.stage === 'run') await job.saveAnswer(`answer ${job.job.deliveryId}`)
          return { kind: 'done' }
        })
        backend.queue.start(worker)
        await settled()
        expect(await backend.jobs.retry(ids[0]!)).toMatchObject({ state: 'queued', stage: 'deliver', answer: 'answer a', attempts: 0 })
        expect(await backend.jobs.retry(ids[1]!)).toMatchObject({ state: 'queued', stage: 'run', answer: undefined })
        await settled()
        expect(leased.slice(2).map((j) => [j.deliveryId, j.stage]).sort()).toEqual([['a', 'deliver'], ['b', 'run']])
        expect(await backend.jobs.retry('no-such-job')).toBeUndefined()
        // A mode that is none of the three (from JavaScript, or a cast) is refused before anything is written.
        await expect(backend.jobs.retry(ids[1]!, 'rerun' as RetryMode)).rejects.toThrow(/unknown retry mode "rerun"/)
        expect(await backend.jobs.get(ids[1]!)).toMatchObject({ state: 'done' })
        await backend.queue.stop(0)
        const c = await accept('c')
        await expect(backend.jobs.retry(c.status === 'accepted' ? c.id : '')).rejects.toThrow(/only a finished job .* can be retried/)
      })

      it('purge deletes jobs that finished before a time, never unfinished ones, nor done ones within the de-dup window', async () => {
        const { backend, accept, settled, clock } = await setup()
        await accept('old')
        backend.queue.start(recorder().worker)
        await settled()
        clock.advance(GAP)
        await backend.queue.stop(0)
        await accept('queued')
        // Done 10 s ago: it still holds its delivery id, so a purge "up to now" keeps it.
        expect(await backend.jobs.purge(clock.now())).toBe(0)
        expect((await backend.dedup.reserve('pr\u0000old')).status).toBe('duplicate')
        clock.advance(WINDOW)
        expect(await backend.jobs.purge(clock.now() - 2 * GAP - WINDOW)).toBe(0)
        expect(await backend.jobs.purge(clock.now())).toBe(1)
        expect((await backend.jobs.list()).map((j) => j.deliveryId)).toEqual(['queued'])
      })
    })


    writersCases({ harness, it, setup, recorder, peer, GAP })
    notesCases({ harness, it, setup, peer, restart })
    replayCases({ it, setup, recorder, GAP })
    groupCases({ harness, it, setup, recorder, peer })
    fairnessCases({ it, setup, recorder })
    closingCases({ it, setup, recorder })
    originCases({ it, setup, recorder, WINDOW, restart: harness.reopen ? restart : undefined })

    if (harness.reopen) {
      describe('durability', () => {
        it('queued jobs, their answers and their de-dup keys survive a restart, and run after it', async () => {
          const { backend, accept, options } = await setup()
          await accept('kept-1')
          await accept('kept-2')
          const next = await restart(backend, options)
          expect((await next.dedup.reserve('pr\u0000kept-1')).status).toBe('duplicate')
          const { leased, worker } = recorder()
          next.queue.start(worker)
          await expect.poll(() => leased.map((j) => j.deliveryId).sort()).toEqual(['kept-1', 'kept-2'])
        })
      })
    }
  })
}
