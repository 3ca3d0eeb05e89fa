/**
 * The state-backend contract's case about a closed pull request (docs/costs.md, "A closed pull request ends its
 * group"): the event that closed or merged it joins its concurrency group as one that closes it, so the group's
 * queued job ends `skipped` (closed) without running, the running one's try learns it through its `superseded`
 * signal and ends `skipped` (closed) too, and the closing job itself never runs.
 */
import { describe, expect } from 'vitest'
import type { AddResult, LeasedJob, StateBackend } from '../core/jobs/lifecycle/state-backend.js'
import type { JobGroup, NewJob } from '../core/jobs/lifecycle/job-record.js'
import { CLOSED, isClosingMark } from '../core/jobs/lifecycle/groups.js'
import { newJob } from './state-backend-harness.js'
import type { WritersCases } from './state-backend-writers.js'

/** What the case needs from the contract. */
export type ClosingCases = Pick<WritersCases, 'it' | 'setup' | 'recorder'>

/** A group of one pull request, without debounce. */
const GROUP: JobGroup = { key: 'pr\u0000octo/repo#9', debounceMs: 0, maxWaitMs: 60_000 }

/** The id of an accepted add. */
const idOf = (added: AddResult): string => (added.status === 'accepted' ? added.id : '')

/** Registers the case. */
export function closingCases({ it, setup, recorder }: ClosingCases): void {
  const add = async (on: StateBackend, job: NewJob) => on.queue.add(job, await on.dedup.reserve(job.dedupKey ?? ''))
  const grouped = (id: string, closes = false): NewJob => ({ ...newJob(id), group: closes ? { ...GROUP, closes } : GROUP })

  describe('a closed pull request', () => {
    it('ends its group\'s running job: the try learns it through its superseded signal, and ends skipped (closed)', async () => {
      const { backend } = await setup()
      const marks: unknown[] = []
      const { leased, worker } = recorder(async (job: LeasedJob) => {
        // The agent still runs when the pull request is closed: the try learns it through its superseded signal.
        await new Promise<void>((resolve) => {
          if (job.superseded.aborted) resolve()
          job.superseded.addEventListener('abort', () => resolve(), { once: true })
          setTimeout(resolve, 6_000).unref()
        })
        const reason: unknown = job.superseded.reason
        marks.push(typeof reason === 'object' && reason !== null && 'by' in reason ? reason.by : undefined)
        // What the dispatcher answers for a stale try: the record, not the worker, says it was closed.
        return { kind: 'superseded', reason: 'a newer event came' }
      })
      backend.queue.start(worker)
      const running = await add(backend, grouped('open-1'))
      await expect.poll(() => leased.length, { timeout: 5_000 }).toBe(1)
      const closing = await add(backend, grouped('close-2', true))
      expect(closing).toMatchObject({ status: 'accepted' })
      await expect.poll(async () => (await backend.jobs.get(idOf(running)))?.state, { timeout: 8_000 }).toBe('skipped')
      expect((await backend.jobs.get(idOf(running)))?.note).toBe(`${CLOSED}: its pull request was closed or merged (job ${idOf(closing)})`)
      expect(marks).toHaveLength(1)
      expect(isClosingMark(marks[0] as string)).toBe(true)
      await expect.poll(async () => (await backend.jobs.get(idOf(closing)))?.state, { timeout: 5_000 }).toBe('skipped')
      expect(leased.map((j) => j.deliveryId)).toEqual(['open-1'])
    })

    it('ends its group\'s queued job skipped (closed) before it runs; the closing job never runs either', async () => {
      const { backend } = await setup()
      const queued = await add(backend, grouped('open-1'))
      const closing = await add(backend, grouped('close-2', true))
      expect(closing).toMatchObject({ status: 'accepted' })
      const { leased, worker } = recorder()
      backend.queue.start(worker)
      for (const added of [queued, closing]) {
        await expect.poll(async () => (await backend.jobs.get(idOf(added)))?.state, { timeout: 8_000 }).toBe('skipped')
        expect((await backend.jobs.get(idOf(added)))?.note).toMatch(new RegExp(`^${CLOSED}: `))
      }
      // Neither is counted as waiting: the closing job was stored already ended.
      expect(await backend.jobs.counts()).toMatchObject({ queued: 0, running: 0 })
      // A job of the group received after the close (a reopened pull request) runs as any other.
      const reopened = await add(backend, grouped('reopen-3'))
      await expect.poll(async () => (await backend.jobs.get(idOf(reopened)))?.state, { timeout: 8_000 }).toBe('done')
      expect(leased.map((j) => j.deliveryId)).toEqual(['reopen-3'])
      // The close was handled: a redelivery of its event stores nothing.
      expect((await backend.dedup.reserve(grouped('close-2').dedupKey ?? '')).status).toBe('duplicate')
    })
  })
}
