/**
 * The state-backend contract's cases about concurrency groups (a route's `concurrency`): the newest job of a
 * group supersedes the queued ones and covers them, runs once after the debounce, at most one job of a group
 * runs at a time, a newer event outdates the running one (its try learns it), a redelivery of a superseded job's
 * event is a duplicate, and two instances on one store keep one queued job per group.
 */
import { describe, expect } from 'vitest'
import type { AddResult, LeasedJob, StateBackend } from '../core/jobs/lifecycle/state-backend.js'
import type { JobGroup, JobRecord, NewJob } from '../core/jobs/lifecycle/job-record.js'
import { newJob, parked } from './state-backend-harness.js'
import type { WritersCases } from './state-backend-writers.js'

/** What the cases need from the contract: what the writers' cases do, but the gap. */
export type GroupCases = Omit<WritersCases, 'GAP'>

/** A group of one pull request, debounced by `debounceMs`. */
const group = (debounceMs: number): JobGroup => ({ key: 'pr\u0000octo/repo#7', debounceMs, maxWaitMs: 60_000 })

/** An event of the group, as the pipeline hands it over. */
const grouped = (id: string, g: JobGroup): NewJob => ({ ...newJob(id), group: g })

/** The id of an accepted add. */
const idOf = (added: AddResult): string => (added.status === 'accepted' ? added.id : '')

/** Registers the cases. */
export function groupCases({ harness, it, setup, recorder, peer }: GroupCases): void {
  const add = async (on: StateBackend, id: string, g: JobGroup) => on.queue.add(grouped(id, g), await on.dedup.reserve(`pr\u0000${id}`))

  describe('concurrency groups', () => {
    it('the newest job of a group supersedes the queued ones, covers them, and runs once after the debounce', async () => {
      const { backend, clock } = await setup()
      const g = group(200)
      const first = await add(backend, 'push-1', g)
      const second = await add(backend, 'push-2', g)
      const third = await add(backend, 'push-3', g)
      // Each add answers the jobs it superseded, as they ended: the gateway publishes them with their delivery ids.
      const ended = (gone: AddResult, deliveryId: string, by: AddResult): unknown[] =>
        [expect.objectContaining({ id: idOf(gone), deliveryId, state: 'superseded', supersededBy: idOf(by) }) as unknown]
      expect(second).toMatchObject({ status: 'accepted', superseded: ended(first, 'push-1', second) })
      expect(third).toMatchObject({ status: 'accepted', superseded: ended(second, 'push-2', third) })
      const { leased, worker } = recorder()
      backend.queue.start(worker)
      clock.advance(200)
      await expect.poll(async () => (await backend.jobs.get(idOf(third)))?.state, { timeout: 5_000 }).toBe('done')
      expect(leased.map((j) => j.deliveryId)).toEqual(['push-3'])
      expect(await backend.jobs.get(idOf(third))).toMatchObject({ covers: 3 })
      await expect.poll(async () => (await backend.jobs.get(idOf(first)))?.state, { timeout: 5_000 }).toBe('superseded')
      expect(await backend.jobs.get(idOf(first))).toMatchObject({ supersededBy: idOf(second) })
      // It was handled (replaced by a newer one): a redelivery of its event runs nothing.
      expect((await backend.dedup.reserve('pr\u0000push-1')).status).toBe('duplicate')
    })

    it('at most one job of a group runs; a newer event outdates the running one, and its try learns it', async () => {
      const { backend } = await setup()
      const g = group(0)
      let running = 0
      let most = 0
      const outdated: string[] = []
      const { leased, worker } = recorder(async (job: LeasedJob) => {
        most = Math.max(most, ++running)
        try {
          if (job.job.deliveryId !== 'run-1') return { kind: 'done' }
          // The first run waits for the newer event, as an agent would still be running when it comes.
          await new Promise<void>((resolve) => {
            if (job.superseded.aborted) resolve()
            job.superseded.addEventListener('abort', () => resolve(), { once: true })
            setTimeout(resolve, 4_000).unref()
          })
          if (job.superseded.aborted) outdated.push(job.job.id)
          return { kind: 'superseded', reason: 'a newer event came', by: undefined }
        } finally {
          running--
        }
      })
      backend.queue.start(worker)
      const first = await add(backend, 'run-1', g)
      await expect.poll(() => leased.length, { timeout: 5_000 }).toBe(1)
      const second = await add(backend, 'run-2', g)
      expect(second).toMatchObject({ status: 'accepted' })
      await expect.poll(async () => (await backend.jobs.get(idOf(second)))?.state, { timeout: 8_000 }).toBe('done')
      expect(outdated).toEqual([idOf(first)])
      expect(most).toBe(1)
      // The worker did not name the newer job: the record did (the lifecycle's `outdated`), and the note says it.
      expect(await backend.jobs.get(idOf(first))).toMatchObject({
        state: 'superseded', supersededBy: idOf(second), note: `superseded by job ${idOf(second)}: a newer event came`,
      })
    })

    it('an operator\'s retry of a job whose group has a newer one never runs it: its answer would be of an older head', async () => {
      const { backend, clock } = await setup()
      const g = group(0)
      const { leased, worker } = recorder()
      backend.queue.start(worker)
      const old = await add(backend, 'head-a', g)
      await expect.poll(async () => (await backend.jobs.get(idOf(old)))?.state, { timeout: 5_000 }).toBe('done')
      clock.advance(1_000)
      const newer = await backend.queue.add({ ...grouped('head-b', g), receivedAt: clock.now() }, await backend.dedup.reserve('pr\u0000head-b'))
      await expect.poll(async () => (await backend.jobs.get(idOf(newer)))?.state, { timeout: 5_000 }).toBe('done')
      await backend.jobs.retry(idOf(old))
      await expect.poll(async () => (await backend.jobs.get(idOf(old)))?.state, { timeout: 5_000 }).toBe('superseded')
      expect(await backend.jobs.get(idOf(old))).toMatchObject({ supersededBy: idOf(newer) })
      // The newest one may be retried: it runs again.
      await backend.jobs.retry(idOf(newer))
      await expect.poll(() => leased.map((j) => j.deliveryId), { timeout: 5_000 }).toEqual(['head-a', 'head-b', 'head-b'])
    })

    if (harness.peer && harness.takeover !== false) {
      it('a job outdated while it ran, whose worker died, ends superseded when recovered, and is reported as ended', async () => {
        const { backend, options, clock } = await setup({ concurrency: 1 })
        const g = group(0)
        let started = false
        backend.queue.start(async (job) => {
          started = true
          return parked(job) // its gateway dies during the run
        })
        const old = await add(backend, 'died-1', g)
        await expect.poll(() => started).toBe(true)
        const newer = await add(backend, 'died-2', g) // outdates the running one
        clock.advance(40_000) // past any lease
        const next = await peer(backend, options)
        const ended: JobRecord[] = []
        next.queue.start(Object.assign(recorder().worker, { ended: (job: JobRecord) => void ended.push(job) }))
        await expect.poll(() => ended.map((j) => [j.id, j.deliveryId, j.state, j.supersededBy]), { timeout: 5_000 })
          .toEqual([[idOf(old), 'died-1', 'superseded', idOf(newer)]])
        expect(await next.jobs.get(idOf(old))).toMatchObject({ state: 'superseded', supersededBy: idOf(newer) })
      })
    }

    if (harness.peer) {
      it('two instances admitting one group\'s events alternately keep one queued job of it', async () => {
        const { backend, options } = await setup()
        const other = await peer(backend, options)
        const g = group(60_000)
        const ids: string[] = []
        for (const [i, on] of [backend, other, backend, other].entries()) ids.push(idOf(await add(on, `alt-${i}`, g)))
        const queued = (await backend.jobs.list({ state: 'queued' })).filter((j) => j.supersededBy === undefined)
        expect(queued.map((j) => j.id)).toEqual([ids[3]])
        expect(await backend.jobs.get(ids[3] ?? '')).toMatchObject({ covers: 4 })
      })
    }
  })
}
