/**
 * GitLab-safe back-pressure (issue 20, item 3): GitLab disables a hook after four failed deliveries in a row, and
 * a 429 is a failure. A route whose sender is GitLab (or that says `over_limit: defer`) answers a verified
 * request over its rate limit 202 `deferred` and runs its job when the limit allows, at the limit's pace; the
 * other senders still get 429, and forgeries 401. Over real HTTP, on the memory and SQLite backends, with the
 * test's clock.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
import type { Clock } from '../../src/core/types.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { sqliteState } from '../../src/plugins/state/sqlite/sqlite-state.js'
import { testGateway, type TestGateway, type TestGatewayOptions } from '../fixtures/gateway.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'

const TOKEN = 'gitlab-token-0123456789'
const LIMIT = 3
const MINUTE = 60_000

interface Backend {
  readonly name: string
  make(now: Clock, maxQueue: number): StateBackend
}

const dirs: string[] = []
const backends: Backend[] = [
  { name: 'memory', make: (now, maxQueue) => memoryState({ concurrency: 4, maxQueue, pollMs: 5, now }) },
  {
    name: 'SQLite',
    make(now, maxQueue) {
      const dir = mkdtempSync(join(tmpdir(), 'hookpilot-over-limit-'))
      dirs.push(dir)
      return sqliteState({ path: join(dir, 'jobs.db'), concurrency: 4, maxQueue, pollMs: 5, now })
    },
  },
]

let current: TestGateway | undefined
afterEach(async () => {
  await current?.gateway.close()
  current = undefined
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A merge request event as GitLab sends it: its token, its event header, a fresh `Idempotency-Key`. */
function gitlabDelivery(iid: number, token = TOKEN): { headers: Record<string, string>; body: string } {
  const body = JSON.stringify({ object_kind: 'merge_request', event_type: 'merge_request', object_attributes: { iid, action: 'update' } })
  const headers = {
    'content-type': 'application/json', 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': token, 'idempotency-key': randomUUID(),
  }
  return { headers, body }
}

/** `refuse`: a delivery id whose first agent run fails for good (its job ends failed). */
async function start(backend: Backend, options: TestGatewayOptions & { maxQueue?: number; refuse?: string } = {}) {
  const ranAt: number[] = []
  const t = await testGateway({
    routes: { mr: { secret: TOKEN, rate_limit: LIMIT } },
    ...options,
    state: (now) => backend.make(now, options.maxQueue ?? 1000),
    agent: (input) => {
      ranAt.push(t.clock.now())
      if (input.deliveryId === options.refuse && ranAt.length === 1) return { ok: false, reason: 'the model refused', retryable: false }
      return { ok: true, text: `answer to ${input.deliveryId}` }
    },
  })
  current = t
  const { url } = await t.gateway.listen({ port: 0 })
  const post = async (path: string, req: { headers: Record<string, string>; body: string | Uint8Array }) => {
    const res = await fetch(url + path, { method: 'POST', headers: req.headers, body: req.body })
    return { status: res.status, headers: Object.fromEntries(res.headers), body: (await res.json()) as Record<string, unknown> }
  }
  /** Waits until every job due on the test's clock has finished. */
  const settled = async () => {
    await expect.poll(async () => {
      const due = (await t.state.jobs.list({ state: 'queued' })).filter((j) => j.notBefore <= t.clock.now()).length
      return due + (await t.state.jobs.counts()).running
    }, { interval: 5 }).toBe(0)
  }
  return { t, ranAt, post, settled }
}

describe.each(backends)('over_limit on $name', (backend) => {
  it('a GitLab burst at 10× the route\'s limit: no answer but 2xx, and every event runs, at most the limit in any minute', async () => {
    const { t, ranAt, post, settled } = await start(backend)
    const startedAt = t.clock.now()
    const burst = Array.from({ length: 10 * LIMIT }, (_, i) => gitlabDelivery(i))
    const answers = await Promise.all(burst.map((req) => post('/webhooks/mr', req)))

    expect(answers.filter((a) => a.status < 200 || a.status > 299)).toEqual([])
    expect(answers.filter((a) => a.body['status'] === 'accepted')).toHaveLength(LIMIT)
    const deferred = answers.filter((a) => a.body['status'] === 'deferred')
    expect(deferred).toHaveLength(9 * LIMIT)
    // Each says when it runs: in the minutes the limit frees, LIMIT to each.
    const runAts = deferred.map((a) => Date.parse(String(a.body['run_at'])) - startedAt).sort((a, b) => a - b)
    expect(runAts).toEqual(Array.from({ length: 9 * LIMIT }, (_, i) => (Math.floor(i / LIMIT) + 1) * MINUTE))

    // The clock moves a minute at a time; each minute runs the jobs due in it, and none sooner.
    for (let minute = 0; minute < 10; minute++) {
      await settled()
      expect(ranAt).toHaveLength((minute + 1) * LIMIT)
      t.clock.advance(MINUTE)
    }
    expect(new Set(t.runs.map((r) => r.deliveryId))).toEqual(new Set(burst.map((req) => req.headers['idempotency-key'])))
    for (let i = LIMIT; i < ranAt.length; i++) expect((ranAt[i] ?? 0) - (ranAt[i - LIMIT] ?? 0)).toBeGreaterThanOrEqual(MINUTE)
    expect(t.log.text()).toContain('over the rate limit: deferred')
  })

  it('a redelivery of a failed job over the limit is deferred like a new event, and runs at its run_at, not at once', async () => {
    const failed = gitlabDelivery(1)
    const key = failed.headers['idempotency-key'] ?? ''
    const { t, ranAt, post, settled } = await start(backend, { refuse: key })
    const startedAt = t.clock.now()
    expect((await post('/webhooks/mr', failed)).body['status']).toBe('accepted')
    await settled()
    expect(await t.state.jobs.list({ state: 'failed' })).toHaveLength(1)
    for (let i = 2; i <= LIMIT; i++) await post('/webhooks/mr', gitlabDelivery(i))
    await settled()
    // GitLab sends the failed delivery again while the route is over its limit: 202, deferred, as a new event.
    const runAt = startedAt + MINUTE
    expect(await post('/webhooks/mr', failed)).toMatchObject({ status: 202, body: { status: 'deferred', run_at: new Date(runAt).toISOString() } })
    await new Promise((resolve) => setTimeout(resolve, 50))
    await settled()
    const runsOf = () => t.runs.flatMap((r, i) => (r.deliveryId === key ? [ranAt[i]] : []))
    expect(runsOf()).toEqual([startedAt]) // not at once
    t.clock.advance(MINUTE)
    await settled()
    expect(runsOf()).toEqual([startedAt, runAt])
    expect(await t.state.jobs.list({ state: 'done' })).toHaveLength(LIMIT)
  })

  it('a deferred delivery sent again is a duplicate, and runs once', async () => {
    const { t, post, settled } = await start(backend)
    for (let i = 0; i < LIMIT; i++) await post('/webhooks/mr', gitlabDelivery(i))
    const late = gitlabDelivery(99)
    expect((await post('/webhooks/mr', late)).body['status']).toBe('deferred')
    expect(await post('/webhooks/mr', late)).toMatchObject({ status: 200, body: { status: 'duplicate' } })
    t.clock.advance(MINUTE)
    await settled()
    expect(t.runs.filter((r) => r.deliveryId === late.headers['idempotency-key'])).toHaveLength(1)
  })
})

describe('over_limit: who defers, who is refused', () => {
  const [memory] = backends as [Backend]

  it('a forged GitLab request over the limit is still refused at once (401), and takes no slot', async () => {
    const { post } = await start(memory)
    for (let i = 0; i < LIMIT; i++) await post('/webhooks/mr', gitlabDelivery(i))
    expect(await post('/webhooks/mr', gitlabDelivery(50, 'wrong-token'))).toMatchObject({ status: 401 })
    const next = await post('/webhooks/mr', gitlabDelivery(51))
    // The first free moment: the forgery took none.
    expect(next.body).toMatchObject({ status: 'deferred', run_at: new Date(Date.UTC(2026, 0, 1) + MINUTE).toISOString() })
  })

  it('GitHub over the limit is answered 429 unless its route says over_limit: defer', async () => {
    const body = githubPayload('pull_request', 'opened')
    const routes = { pr: { secret: TOKEN, rate_limit: 1 }, deferring: { secret: TOKEN, rate_limit: 1, over_limit: 'defer' as const } }
    const { post } = await start(memory, { routes })
    const github = () => ({ headers: githubHeaders('pull_request', body, TOKEN), body })
    expect((await post('/webhooks/pr', github())).status).toBe(202)
    expect(await post('/webhooks/pr', github())).toMatchObject({ status: 429, headers: { 'retry-after': '60' } })
    expect((await post('/webhooks/deferring', github())).body['status']).toBe('accepted')
    expect(await post('/webhooks/deferring', github())).toMatchObject({ status: 202, body: { status: 'deferred' } })
  })

  it('a GitLab route that says over_limit: reject answers 429', async () => {
    const { post } = await start(memory, { routes: { mr: { secret: TOKEN, rate_limit: 1, over_limit: 'reject' } } })
    expect((await post('/webhooks/mr', gitlabDelivery(1))).status).toBe(202)
    expect((await post('/webhooks/mr', gitlabDelivery(2))).status).toBe(429)
  })

  it('max_queue still bounds the deferred: past it 503, and the moment it booked is given back', async () => {
    const { t, post, settled } = await start(memory, { maxQueue: 2 })
    for (let i = 0; i < LIMIT; i++) expect((await post('/webhooks/mr', gitlabDelivery(i))).status).toBe(202)
    await settled()
    expect((await post('/webhooks/mr', gitlabDelivery(10))).body['status']).toBe('deferred')
    expect((await post('/webhooks/mr', gitlabDelivery(11))).body['status']).toBe('deferred')
    expect(await post('/webhooks/mr', gitlabDelivery(12))).toMatchObject({ status: 503, body: { error: 'Queue full' } })
    expect(await post('/webhooks/mr', gitlabDelivery(13))).toMatchObject({ status: 503 })
    // The refused ones hold no moment: a minute on, the two deferred ones leave room for a third at once.
    t.clock.advance(MINUTE)
    await settled()
    expect((await post('/webhooks/mr', gitlabDelivery(14))).body['status']).toBe('accepted')
  })
})
