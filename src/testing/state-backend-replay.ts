/**
 * The state-backend contract's cases about finding jobs after an incident and replaying them: the list's
 * filters (time, reason as text or glob), paging with a cursor, and the three ways a finished job is queued
 * again (resume, run the agent again, resend the stored answer). What `hookpilot jobs retry --state …` relies on,
 * on every backend.
 */
import { describe, expect } from 'vitest'
import type { JobRecord } from '../core/jobs/lifecycle/job-record.js'
import type { StateBackend } from '../core/jobs/lifecycle/state-backend.js'
import type { contractWorld } from './state-backend-harness.js'

type World = ReturnType<typeof contractWorld>

/** What the cases need from the contract. */
export interface ReplayCases {
  /** The contract's `it`, which lists a case the harness cannot meet as skipped with its reason. */
  readonly it: (title: string, fn: () => Promise<void>) => void
  readonly setup: World['setup']
  readonly recorder: World['recorder']
  readonly GAP: number
}

const ids = (jobs: readonly JobRecord[]) => jobs.map((j) => j.deliveryId)

/** Every page of `list`, a cursor at a time. */
async function allPages(backend: StateBackend, filter: Parameters<StateBackend['jobs']['list']>[0], limit: number): Promise<string[][]> {
  const pages: string[][] = []
  for (let before: string | undefined; ;) {
    const page = await backend.jobs.list({ ...filter, before, limit })
    if (page.length === 0) return pages
    pages.push(ids(page))
    before = page.at(-1)?.id
  }
}

/** Registers the cases. */
export function replayCases({ it, setup, recorder, GAP }: ReplayCases): void {
  describe('finding and replaying jobs', () => {
    /**
     * Four jobs ended at four times, one at a time: `a` failed (answered, its delivery failed), `b` failed in
     * its run, `c` done, `d` skipped. The worker keeps running: a replayed job is done at once, as it leases it.
     */
    async function incident() {
      const world = await setup({ concurrency: 1 })
      const { backend, accept, settled, clock } = world
      for (const id of ['a', 'b', 'c', 'd']) await accept(id)
      const times: Record<string, number> = {}
      const { leased, worker } = recorder(async (job) => {
        if (job.job.deliveryId in times) return { kind: 'done' }
        clock.advance(GAP)
        times[job.job.deliveryId] = clock.now()
        switch (job.job.deliveryId) {
          case 'a':
            await job.saveAnswer('answer a')
            return { kind: 'failed', reason: 'gh: HTTP 502 Bad Gateway' }
          case 'b':
            return { kind: 'failed', reason: 'the agent timed out after 600 s' }
          case 'd':
            return { kind: 'skipped', reason: 'the agent had nothing to say' }
          default:
            await job.saveAnswer('answer c')
            return { kind: 'done' }
        }
      })
      backend.queue.start(worker)
      await settled()
      const idOf = async (delivery: string) => (await backend.jobs.list()).find((j) => j.deliveryId === delivery)?.id ?? ''
      return { ...world, times, leased, idOf }
    }

    it('list filters by reason (text anywhere, or a glob over all of it, any case) and by when a job last changed', async () => {
      const { backend, times } = await incident()
      expect(ids(await backend.jobs.list({ reason: 'http 502' }))).toEqual(['a'])
      expect(ids(await backend.jobs.list({ reason: 'the agent*' }))).toEqual(['d', 'b'])
      expect(ids(await backend.jobs.list({ reason: '*502' }))).toEqual([])
      expect(ids(await backend.jobs.list({ reason: '*502*', state: 'failed' }))).toEqual(['a'])
      expect(ids(await backend.jobs.list({ reason: '100%' }))).toEqual([]) // a LIKE wildcard is text here
      const [ta = 0, tb = 0, tc = 0, td = 0] = ['a', 'b', 'c', 'd'].map((d) => times[d] ?? 0)
      expect(ta < tb && tb < tc && tc < td).toBe(true)
      expect(ids(await backend.jobs.list({ since: tb }))).toEqual(['d', 'c', 'b'])
      expect(ids(await backend.jobs.list({ until: tb }))).toEqual(['b', 'a'])
      expect(ids(await backend.jobs.list({ since: tb, until: tc, state: 'failed' }))).toEqual(['b'])
    })

    it('pages with a cursor: each page older than the last, every job once, none after the last page', async () => {
      const { backend } = await incident()
      expect(await allPages(backend, {}, 3)).toEqual([['d', 'c', 'b'], ['a']])
      expect(await allPages(backend, { state: 'failed' }, 1)).toEqual([['b'], ['a']])
      expect(await allPages(backend, { reason: 'the agent' }, 10)).toEqual([['d', 'b']])
    })

    it('retry modes: resend-answer delivers the stored answer without a run, rerun-agent starts from the agent', async () => {
      const { backend, idOf, leased, settled } = await incident()
      const [a = '', b = '', c = '', d = ''] = await Promise.all(['a', 'b', 'c', 'd'].map(idOf))
      expect(await backend.jobs.retry(a, 'resend-answer')).toMatchObject({ state: 'queued', stage: 'deliver', answer: 'answer a', attempts: 0 })
      expect(await backend.jobs.retry(c, 'resend-answer')).toMatchObject({ state: 'queued', stage: 'deliver', answer: 'answer c', progress: 0 })
      await expect(backend.jobs.retry(b, 'resend-answer')).rejects.toThrow(/no stored answer/)
      expect((await backend.jobs.get(b))?.state).toBe('failed') // refused: left as it was
      expect(await backend.jobs.retry(b, 'rerun-agent')).toMatchObject({ state: 'queued', stage: 'run', answer: undefined })
      expect(await backend.jobs.retry(d, 'rerun-agent')).toMatchObject({ state: 'queued', stage: 'run' })
      await settled()
      expect(leased.slice(4).map((j) => [j.deliveryId, j.stage, j.answer ?? null]).sort()).toEqual([
        ['a', 'deliver', 'answer a'], ['b', 'run', null], ['c', 'deliver', 'answer c'], ['d', 'run', null],
      ])
    })
  })
}
