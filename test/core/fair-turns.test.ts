/**
 * A route's `fair_by` and `start_within_seconds` over the gateway: the fairness key is rendered from the payload
 * when the event is accepted and stored with its job beside its start deadline, and a job still queued past the
 * deadline ends skipped (expired) without its agent starting.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { testGateway, SECRET, type TestGateway } from '../fixtures/gateway.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'

const body = githubPayload('pull_request', 'synchronize')
const repository = (JSON.parse(body.toString('utf8')) as { repository: { full_name: string } }).repository.full_name
const request = (id: string) => ({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET, id), body })
const routes = { pr: { secret: SECRET, events: ['pull_request'], fair_by: '{repository.full_name}', start_within_seconds: 60 } }

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const t of gateways.splice(0)) await t.gateway.close()
})

describe('fair_by and start_within_seconds', () => {
  it('a job carries its rendered fairness key and its start deadline', async () => {
    const t = await testGateway({ routes })
    gateways.push(t)
    expect((await t.gateway.handle(request('one'))).status).toBe(202)
    await t.idle()
    const [job] = await t.state.jobs.list()
    expect(job).toMatchObject({ state: 'done', fairKey: repository, startBy: (job?.receivedAt ?? 0) + 60_000 })
  })

  it('a job still queued past its deadline ends skipped (expired) and its agent never starts', async () => {
    let release = () => {}
    const hold = new Promise<void>((resolve) => (release = resolve))
    const t = await testGateway({
      routes,
      state: (now) => memoryState({ concurrency: 1, maxQueue: 10, now, pollMs: 5 }),
      agent: async (input) => {
        if (input.deliveryId === 'first') await hold
        return { ok: true, text: 'fine' }
      },
    })
    gateways.push(t)
    expect((await t.gateway.handle(request('first'))).status).toBe(202)
    await expect.poll(() => t.runs.length).toBe(1)
    expect((await t.gateway.handle(request('late'))).status).toBe(202)
    t.clock.advance(61_000)
    release()
    await t.idle()
    const late = (await t.state.jobs.list()).find((j) => j.deliveryId === 'late')
    expect(late).toMatchObject({ state: 'skipped', note: expect.stringMatching(/^expired: not started within the route's start_within_seconds \(60 s/) })
    expect(t.runs.map((r) => r.deliveryId)).toEqual(['first'])
  })
})
