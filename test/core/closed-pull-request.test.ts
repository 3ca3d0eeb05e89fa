/**
 * A closed or merged pull request over the gateway (docs/costs.md, "A closed pull request ends its group"): on a
 * route whose `actions` would drop the closing event, it is still recognised, joins the route's concurrency group
 * (the key rendered from the closing payload) and ends the group's running job (its agent run stopped, nothing
 * posted) and queued one `skipped`, reason `closed`; the closing event runs no agent itself.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { testGateway, SECRET, type TestGateway } from '../fixtures/gateway.js'
import { githubExample, githubHeaders } from '../fixtures/github.js'
import { gitlabHeaders, mergeRequestHook } from '../fixtures/gitlab.js'

const concurrency = { key: '{repository.full_name}#{pull_request.number}' }
const routes = { pr: { secret: SECRET, events: ['pull_request'], actions: ['opened', 'synchronize'], concurrency } }
/** A GitHub pull_request event of `action`, as the recorded example sends it. */
const github = (action: string, id: string) => {
  const body = Buffer.from(JSON.stringify(githubExample('pull_request', action === 'closed' ? 'closed' : 'synchronize')).replace(/"action":"synchronize"/, `"action":"${action}"`), 'utf8')
  return { method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET, id), body }
}

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const t of gateways.splice(0)) await t.gateway.close()
})

describe('a closed pull request ends its concurrency group', () => {
  it('GitHub: the close, which the route\'s actions drop, stops the running review; it ends skipped (closed) and posts nothing', async () => {
    const stopped: unknown[] = []
    const t = await testGateway({
      routes,
      agent: async (input, ctx) => {
        // An agent still working when the pull request is closed: it stops only when the gateway aborts its run.
        await new Promise<void>((resolve) => {
          if (ctx.signal.aborted) resolve()
          ctx.signal.addEventListener('abort', () => resolve(), { once: true })
        })
        stopped.push(input.deliveryId)
        return { ok: false, reason: 'stopped' }
      },
    })
    gateways.push(t)
    expect((await t.gateway.handle(github('synchronize', 'push-1'))).status).toBe(202)
    await expect.poll(() => t.runs.length).toBe(1)
    expect((await t.gateway.handle(github('closed', 'close-2'))).status).toBe(202)
    await t.idle()
    const running = await t.state.jobs.find('pr', 'push-1')
    const closing = await t.state.jobs.find('pr', 'close-2')
    expect(stopped).toEqual(['push-1'])
    expect(running).toMatchObject({ state: 'skipped', note: `closed: its pull request was closed or merged (job ${closing?.id})` })
    expect(closing).toMatchObject({ state: 'skipped', note: expect.stringMatching(/^closed: /) })
    expect(t.runs.map((r) => r.deliveryId)).toEqual(['push-1'])
    expect(t.answers).toEqual([])
  })

  it('GitLab: a merge ends the debounced job of its merge request before it runs; another merge request\'s job still runs', async () => {
    const token = 'gl-token-0123456789'
    const t = await testGateway({
      routes: { mr: { secret: token, events: ['Merge Request Hook'], actions: ['open', 'update'], concurrency: { key: '{project.path_with_namespace}!{object_attributes.iid}', debounce_seconds: 60 } } },
    })
    gateways.push(t)
    const post = (payload: Record<string, unknown>, id: string) => {
      const body = Buffer.from(JSON.stringify(payload), 'utf8')
      return t.gateway.handle({ method: 'POST', path: '/webhooks/mr', headers: { ...gitlabHeaders(token, id), 'idempotency-key': id }, body })
    }
    const merged = mergeRequestHook('close', { iid: 3 }) as { object_attributes: Record<string, unknown> }
    merged.object_attributes.action = 'merge'
    expect((await post(mergeRequestHook('update', { iid: 3 }), 'update-3')).status).toBe(202)
    expect((await post(mergeRequestHook('update', { iid: 4 }), 'update-4')).status).toBe(202)
    expect((await post(merged, 'merge-3')).status).toBe(202)
    t.clock.advance(61_000)
    await t.answered(1)
    await t.idle()
    expect(await t.state.jobs.find('mr', 'update-3')).toMatchObject({ state: 'skipped', note: expect.stringMatching(/^closed: /) })
    expect(await t.state.jobs.find('mr', 'merge-3')).toMatchObject({ state: 'skipped' })
    expect(await t.state.jobs.find('mr', 'update-4')).toMatchObject({ state: 'done' })
    expect(t.runs.map((r) => r.deliveryId)).toEqual(['update-4'])
  })
})
