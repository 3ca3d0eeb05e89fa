/**
 * Jobs that end `superseded` outside a try of their own are published and counted like every other ending: the
 * queued jobs a newer event of their concurrency group replaces on the request path (on `hookpilot:job`, with
 * their delivery ids), and a job a newer event outdated while it ran, whose process died, when the next start
 * recovers it (in `hookpilot_jobs_finished_total` too). Over the gateway, on SQLite files.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { JOB_CHANNEL, type JobEvent } from '../../src/core/jobs/views/job-events.js'
import { sqliteState } from '../../src/plugins/state/sqlite/sqlite-state.js'
import { testGateway, SECRET, type TestGateway } from '../fixtures/gateway.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'

const TOKEN = 'scrape-token-0123456789'
const body = githubPayload('pull_request', 'synchronize')
const request = (id: string) => ({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET, id), body })
const grouped = (debounceSeconds: number) => ({
  pr: { secret: SECRET, events: ['pull_request'], concurrency: { key: '{repository.full_name}#{pull_request.number}', debounce_seconds: debounceSeconds } },
})

const seen: JobEvent[] = []
const listen = (message: unknown) => void seen.push(message as JobEvent)
const dirs: string[] = []
const gateways: TestGateway[] = []
afterEach(async () => {
  unsubscribe(JOB_CHANNEL, listen)
  seen.length = 0
  for (const t of gateways.splice(0).reverse()) await t.gateway.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A gateway with /metrics on the SQLite file `path`, whose agent answers once `release` is called. */
async function gatewayOn(path: string, debounceSeconds: number, hold?: Promise<void>) {
  const t = await testGateway({
    routes: grouped(debounceSeconds),
    config: { metrics: { enabled: true, token: TOKEN } } as never,
    state: (now) => sqliteState({ path, concurrency: 2, maxQueue: 100, pollMs: 5, now }),
    agent: async () => {
      await hold
      return { ok: true, text: 'fine' }
    },
  })
  gateways.push(t)
  const metrics = async () => {
    const res = await t.gateway.handle({ method: 'GET', path: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
    const text = typeof res.body === 'string' ? res.body : Buffer.from(res.body ?? new Uint8Array()).toString()
    return Number(/^hookpilot_jobs_finished_total\{route="pr",outcome="superseded"\} (\d+)$/m.exec(text)?.[1] ?? 0)
  }
  return { t, metrics }
}

const file = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookpilot-superseded-'))
  dirs.push(dir)
  return join(dir, 'jobs.db')
}

describe('superseded jobs, published and counted', () => {
  it('a queued job a newer event of its group replaced is published with its delivery id, naming the newer job, and counted', async () => {
    subscribe(JOB_CHANNEL, listen)
    const { t, metrics } = await gatewayOn(file(), 60)
    expect((await t.gateway.handle(request('push-1'))).status).toBe(202)
    expect((await t.gateway.handle(request('push-2'))).status).toBe(202)
    const [newer] = await t.state.jobs.list({ state: 'queued' })
    expect(seen.filter((e) => e.kind === 'superseded')).toEqual([
      expect.objectContaining({ deliveryId: 'push-1', route: 'pr', by: newer?.id, reason: expect.stringContaining(`superseded by job ${newer?.id ?? ''}`) }),
    ])
    expect(await metrics()).toBe(1)
  })

  it('a job outdated while it ran, whose process died, ends superseded at the next start: published and counted there', async () => {
    const path = file()
    let release = () => {}
    const first = await gatewayOn(path, 0, new Promise<void>((resolve) => (release = resolve)))
    try {
      expect((await first.t.gateway.handle(request('run-1'))).status).toBe(202)
      await expect.poll(() => first.t.runs.length).toBe(1)
      expect((await first.t.gateway.handle(request('run-2'))).status).toBe(202) // outdates run-1, which still runs
      const [outdated] = await first.t.state.jobs.list({ state: 'running' })
      // A second gateway on the file sees the first one's lease as a dead process's: its start recovers the job.
      subscribe(JOB_CHANNEL, listen)
      const second = await gatewayOn(path, 0)
      await expect.poll(async () => (await second.t.state.jobs.get(outdated?.id ?? ''))?.state).toBe('superseded')
      await expect.poll(() => second.metrics()).toBe(1)
      expect(seen.filter((e) => e.kind === 'superseded')).toEqual([expect.objectContaining({ job: outdated?.id, deliveryId: 'run-1' })])
    } finally {
      release()
    }
  })
})
