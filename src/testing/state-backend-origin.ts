/**
 * The state-backend contract's cases about where a job comes from: the `link` and `hook` an accepted event
 * brings stay on its record through every edge of its life (and a restart), and `find(route, deliveryId)`
 * answers a delivery's job, the newest once its key moved to a redelivery after the window.
 */
import { describe, expect } from 'vitest'
import type { StateBackend } from '../core/jobs/lifecycle/state-backend.js'
import { newJob, type contractWorld } from './state-backend-harness.js'
import type { WritersCases } from './state-backend-writers.js'

type World = ReturnType<typeof contractWorld>

/** What the cases need from the contract. */
export interface OriginCases extends Pick<WritersCases, 'it' | 'setup' | 'recorder'> {
  readonly WINDOW: World['WINDOW']
  /** Stops `backend` and opens its store again (durable harnesses only). */
  readonly restart?: World['restart'] | undefined
}

const LINK = 'https://github.com/octo-org/hello-world/pull/7'
const HOOK = 'repos/octo-org/hello-world/hooks/12345678'

/** Adds delivery `id` of route `pr` with the link and hook a GitHub pull request event brings. */
async function acceptWithOrigin(backend: StateBackend, id: string) {
  return backend.queue.add({ ...newJob(id), link: LINK, hook: HOOK }, await backend.dedup.reserve(`pr\u0000${id}`))
}

/** Registers the cases. */
export function originCases({ it, setup, recorder, WINDOW, restart }: OriginCases): void {
  describe('where a job comes from', () => {
    it('keeps the link and hook it was accepted with through its life; find answers the delivery\'s job', async () => {
      const { backend, settled } = await setup()
      const added = await acceptWithOrigin(backend, 'from-github')
      await backend.queue.add(newJob('plain'), await backend.dedup.reserve('pr\u0000plain'))
      const id = added.status === 'accepted' ? added.id : ''
      expect(await backend.jobs.find('pr', 'from-github')).toMatchObject({ id, state: 'queued', link: LINK, hook: HOOK })
      const { worker } = recorder(async (job) => {
        await job.saveAnswer('answer')
        return { kind: 'done', url: 'https://example.test/comment' }
      })
      backend.queue.start(worker)
      await settled()
      // Every write of the record since (lease, answer, outcome) kept them.
      expect(await backend.jobs.find('pr', 'from-github')).toMatchObject({ id, state: 'done', link: LINK, hook: HOOK, answer: 'answer' })
      expect(await backend.jobs.get(id)).toMatchObject({ link: LINK, hook: HOOK })
      expect((await backend.jobs.list({ state: 'done' })).find((j) => j.id === id)).toMatchObject({ link: LINK, hook: HOOK })
      const plain = await backend.jobs.find('pr', 'plain')
      expect([plain?.deliveryId, plain?.link, plain?.hook]).toEqual(['plain', undefined, undefined])
      expect(await backend.jobs.find('pr', 'never-sent')).toBeUndefined()
      expect(await backend.jobs.find('other-route', 'from-github')).toBeUndefined()
      expect(await backend.jobs.retry(id, 'rerun-agent')).toMatchObject({ link: LINK, hook: HOOK })
    })

    it('find answers the newest job of a delivery: the redelivery after the window that took its key', async () => {
      const { backend, accept, settled, clock } = await setup()
      const first = await accept('twice')
      backend.queue.start(recorder().worker)
      await settled()
      clock.advance(WINDOW + 1)
      const second = await acceptWithOrigin(backend, 'twice')
      expect(second.status).toBe('accepted')
      expect(second).not.toEqual(first)
      expect(await backend.jobs.find('pr', 'twice')).toMatchObject({ id: second.status === 'accepted' ? second.id : '', link: LINK })
    })

    if (restart) {
      it('the link, the hook and find survive a restart', async () => {
        const { backend, options } = await setup()
        await acceptWithOrigin(backend, 'kept')
        const next = await restart(backend, options)
        expect(await next.jobs.find('pr', 'kept')).toMatchObject({ deliveryId: 'kept', link: LINK, hook: HOOK })
      })
    }
  })
}
