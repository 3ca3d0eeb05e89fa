/**
 * One try of a job: prompt (skills + template), the agent run within its bounds, the answer stored before any
 * delivery, delivery retries as outcomes (never a sleep in a worker slot), and every failure logged with its
 * delivery id and returned as an outcome.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createDispatcher, workerOf, type DispatcherParts } from '../../src/core/dispatch/dispatcher.js'
import { DeliveryError, GatewayError } from '../../src/core/errors.js'
import type { AgentAnswer, AgentEnvironment, AgentInput, AgentRunner, DeliveryTarget, Route } from '../../src/core/types.js'
import type { LeasedJob } from '../../src/core/jobs/lifecycle/state-backend.js'
import { recordingLogger } from '../../src/testing/context.js'
import { drive, leasedRecord, routeTable, testRoute, testWorker, type DriveOptions } from '../fixtures/dispatch.js'

const PAYLOAD = { number: 5, repository: { full_name: 'o/r' } }
const route = (overrides: Partial<Route> = {}): Route => testRoute({ prompt: 'PR {number}', ...overrides })

interface Setup extends Partial<Omit<DispatcherParts, 'routes'>> {
  readonly runner?: AgentRunner
  readonly answer?: string
  readonly deliver?: DeliveryTarget['deliver']
  readonly route?: Route
}

function setup(overrides: Setup = {}) {
  const log = recordingLogger()
  const prompts: string[] = []
  const delivered: AgentAnswer[] = []
  const runner: AgentRunner = { name: 'fake', run: async (input) => (prompts.push(input.prompt), { ok: true, text: overrides.answer ?? 'review' }) }
  const target: DeliveryTarget = { name: 't', deliver: overrides.deliver ?? (async (a) => void delivered.push(a)) }
  const worker = testWorker({
    routes: routeTable([overrides.route ?? route()]), runner, targets: new Map([['t', target]]), log, skillsDir: '/nonexistent',
    timeoutMs: 5000, clock: () => 0, ...overrides,
  })
  const run = (options: DriveOptions = {}) => drive(worker, { payload: PAYLOAD, ...options })
  return { run, log, prompts, delivered }
}

describe('dispatcher', () => {
  it('renders the prompt and deliver_extra from the payload, and ends done', async () => {
    const { run, prompts, delivered } = setup({ route: route({ deliverExtra: { repo: '{repository.full_name}', pr_number: '{number}' } }) })
    const { outcomes, job } = await run()
    expect(prompts).toEqual(['PR 5'])
    expect(delivered[0]).toEqual({ route: 'pr', event: 'pull_request', deliveryId: 'd1', text: 'review', extra: { repo: 'o/r', pr_number: '5' }, payload: expect.any(Object), job: '1' })
    expect(outcomes).toEqual([{ kind: 'done' }])
    expect(job).toMatchObject({ state: 'done', stage: 'deliver', answer: 'review' })
  })

  it('posts only under a confirmed lease: a resumed delivery confirms it first, and one whose lease is lost posts nothing', async () => {
    const { delivered } = setup()
    const worker = testWorker({
      routes: routeTable([route()]), runner: { name: 'never', run: async () => ({ ok: false, reason: 'must not run' }) },
      targets: new Map([['t', { name: 't', deliver: async (a: AgentAnswer) => void delivered.push(a) }]]), log: recordingLogger(),
      skillsDir: '/nonexistent', timeoutMs: 5000, clock: () => 0,
    })
    let confirmations = 0
    const leased = (confirm: () => Promise<void>): LeasedJob => ({
      job: leasedRecord({ stage: 'deliver', answer: 'stored review' }), payload: PAYLOAD, signal: new AbortController().signal, superseded: new AbortController().signal,
      saveAnswer: async () => {}, saveProgress: async () => {}, saveUsage: async () => {}, recordProcess: () => {},
      confirmLease: async () => ((confirmations++), confirm()),
    })
    expect(await worker(leased(async () => {}))).toEqual({ kind: 'done' })
    expect([confirmations, delivered.map((a) => a.text)]).toEqual([1, ['stored review']])
    const lost = new GatewayError('ERR_LEASE_LOST', 'The lease on job 1 was lost')
    expect(await worker(leased(() => Promise.reject(lost)))).toEqual({ kind: 'interrupted' })
    expect(delivered).toHaveLength(1) // nothing posted without the lease
  })

  it('after storing a new answer (a write under the lease) delivers without a second confirmation', async () => {
    let confirmations = 0
    const { delivered } = setup()
    const worker = testWorker({
      routes: routeTable([route()]), runner: { name: 'r', run: async () => ({ ok: true, text: 'fresh' }) },
      targets: new Map([['t', { name: 't', deliver: async (a: AgentAnswer) => void delivered.push(a) }]]), log: recordingLogger(),
      skillsDir: '/nonexistent', timeoutMs: 5000, clock: () => 0,
    })
    const outcome = await worker({
      job: leasedRecord(), payload: PAYLOAD, signal: new AbortController().signal, superseded: new AbortController().signal, saveAnswer: async () => {}, saveProgress: async () => {}, saveUsage: async () => {},
      recordProcess: () => {}, confirmLease: async () => void confirmations++,
    })
    expect([outcome, confirmations, delivered.map((a) => a.text)]).toEqual([{ kind: 'done' }, 0, ['fresh']])
  })

  it('gives runners the prompt in parts too: the operator\'s text apart from the payload\'s values', async () => {
    const inputs: AgentInput[] = []
    const runner: AgentRunner = { name: 'r', run: async (input) => (inputs.push(input), { ok: true, text: 'x' }) }
    await setup({ runner, route: route({ prompt: 'Review {repository.full_name}#{number}' }) }).run()
    await setup({ runner, route: route({ prompt: undefined }) }).run()
    expect(inputs[0]?.parts).toEqual({ instructions: 'Review {repository.full_name}#{number}', fields: { 'repository.full_name': 'o/r', number: '5' } })
    expect(inputs[0]?.prompt).toBe('Review o/r#5')
    expect(inputs[1]?.parts).toEqual({
      instructions: "Webhook event 'pull_request' on route 'pr': its payload is {payload}.",
      fields: { payload: JSON.stringify(PAYLOAD, null, 2) },
    })
  })

  it('puts the first skill found before the prompt and warns about the missing ones', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skills-'))
    await mkdir(join(dir, 'review'))
    await writeFile(join(dir, 'review', 'SKILL.md'), 'Be terse.\n')
    await mkdir(join(dir, 'second'))
    await writeFile(join(dir, 'second', 'SKILL.md'), 'never loaded')
    const { run, prompts, log } = setup({ skillsDir: dir, route: route({ skills: ['missing', 'review', 'second'] }) })
    await run()
    expect(prompts).toEqual(['Be terse.\n\nPR 5'])
    expect(log.lines.filter((l) => l.message === 'skill not loaded').map((l) => l.fields['skill'])).toEqual(['missing'])
  })

  it('delivers a bare SKIP unless the route lists it as silent, then the job ends skipped with why; an empty answer fails, never done', async () => {
    const loud = setup({ answer: 'SKIP' })
    expect((await loud.run()).outcomes).toEqual([{ kind: 'done' }])
    expect(loud.delivered.map((a) => a.text)).toEqual(['SKIP'])
    const quiet = setup({ answer: 'SKIP\n', route: route({ silentOutputs: ['SKIP'] }) })
    const skipped = await quiet.run()
    expect(skipped.outcomes).toEqual([{ kind: 'skipped', reason: 'the agent answered "SKIP", one of the route\'s silent_outputs' }])
    expect(skipped.job).toMatchObject({ state: 'skipped', note: expect.stringContaining('silent_outputs') })
    expect(quiet.delivered).toEqual([])
    for (const answer of ['', ' \n']) {
      const empty = setup({ answer, route: route({ silentOutputs: [''] }) })
      const { outcomes, job } = await empty.run()
      expect(outcomes).toEqual([{ kind: 'failed', reason: 'the agent answered nothing (an empty answer)' }])
      expect(job.state).toBe('failed')
      expect(empty.delivered).toEqual([])
    }
  })

  it('answers retry at a time for a passing delivery failure (backoff, Retry-After), never running the agent again', async () => {
    let calls = 0
    const { run, prompts, log } = setup({
      clock: () => 1_000_000,
      retry: { attempts: 5, firstDelayMs: 1000, maxDelayMs: 60_000 },
      random: () => 0.5, // no jitter
      deliver: async () => {
        calls++
        if (calls === 1) throw new DeliveryError('t', 'HTTP 503', { retryable: true })
        if (calls === 2) throw new DeliveryError('t', 'HTTP 429', { retryable: true, retryAfterMs: 7000 })
        if (calls === 3) throw new DeliveryError('t', 'network', { retryable: true })
      },
    })
    const { outcomes, sleeps, job } = await run({ now: () => 1_000_000 })
    expect(calls).toBe(4)
    expect(prompts).toHaveLength(1)
    expect(outcomes.map((o) => o.kind)).toEqual(['retry', 'retry', 'retry', 'done'])
    expect(sleeps).toEqual([1000, 7000, 4000])
    expect(job).toMatchObject({ state: 'done', attempts: 4 })
    expect(log.lines.filter((l) => l.message === 'delivery failed, retrying')).toHaveLength(3)
    expect(log.lines.at(-1)).toMatchObject({ message: 'delivered', fields: { target: 't', attempt: 4 } })
  })

  it('retries a DeliveryError thrown by another copy of the package (brand check, not instanceof)', async () => {
    let calls = 0
    const foreign = Object.assign(new Error('t: HTTP 503'), { code: 'ERR_DELIVERY', retryable: true, retryAfterMs: undefined })
    Object.defineProperty(foreign, Symbol.for('hookpilot.GatewayError'), { value: true })
    const { run } = setup({ deliver: async () => { if (++calls === 1) throw foreign } })
    const { outcomes } = await run()
    expect(foreign instanceof DeliveryError).toBe(false)
    expect(outcomes.map((o) => o.kind)).toEqual(['retry', 'done'])
  })

  it('fails a permanent delivery failure at once, logging route, delivery id, target and reason', async () => {
    let calls = 0
    const { run, log } = setup({ deliver: async () => { calls++; throw new DeliveryError('t', 'HTTP 403 forbidden') } })
    const { outcomes, job } = await run()
    expect(calls).toBe(1)
    expect(outcomes).toEqual([{ kind: 'failed', reason: 't: HTTP 403 forbidden' }])
    expect(job).toMatchObject({ state: 'failed', stage: 'deliver', answer: 'review', lastError: 't: HTTP 403 forbidden' })
    expect(log.lines.at(-1)).toMatchObject({ level: 'error', message: 'delivery failed', fields: { route: 'pr', delivery: 'd1', target: 't', reason: 't: HTTP 403 forbidden' } })
  })

  it('gives up after delivery.retry.attempts tries (8 by default), saying so', async () => {
    let calls = 0
    const { run } = setup({ deliver: async () => { calls++; throw new DeliveryError('t', 'down', { retryable: true }) } })
    const { outcomes } = await run()
    expect(calls).toBe(8)
    expect(outcomes.at(-1)).toEqual({ kind: 'failed', reason: 't: down (gave up after 8 tries; delivery.retry.attempts is 8)' })
  })

  it('a job leased at stage deliver delivers its stored answer without running the agent', async () => {
    const { run, prompts, delivered } = setup()
    const { outcomes } = await run({ job: { stage: 'deliver', answer: 'stored answer', attempts: 2 } })
    expect(prompts).toEqual([])
    expect(delivered.map((a) => a.text)).toEqual(['stored answer'])
    expect(outcomes).toEqual([{ kind: 'done' }])
  })

  it('a failed run, a throwing runner and a runner that throws synchronously are failed outcomes, logged with the delivery id', async () => {
    const runners: AgentRunner[] = [
      { name: 'f', run: async () => ({ ok: false, reason: 'exit 1' }) },
      { name: 'x', run: async () => { throw new Error('kaboom') } },
      { name: 'sync', run: () => { throw new Error('thrown synchronously') } } as unknown as AgentRunner,
    ]
    const reasons = []
    for (const runner of runners) {
      const { run, log } = setup({ runner, agentRetry: { attempts: 1, firstDelayMs: 1000, maxDelayMs: 1000 } })
      const { outcomes, job } = await run()
      expect(job.state).toBe('failed')
      expect(log.lines.at(-1)).toMatchObject({ level: 'error', message: 'agent run failed', fields: { delivery: 'd1', route: 'pr' } })
      reasons.push(outcomes[0])
    }
    expect(reasons).toEqual([
      { kind: 'failed', reason: 'exit 1' }, { kind: 'failed', reason: 'kaboom' }, { kind: 'failed', reason: 'thrown synchronously' },
    ])
  })

  it('one dispatcher serves every job: each try gets its job\'s runner and environment, and a job without one gets no ctx.env', async () => {
    const envs: (AgentEnvironment | undefined)[] = []
    const seen: string[] = []
    const runner: AgentRunner = { name: 'r', run: async (_input, ctx) => (envs.push(ctx.env), { ok: true, text: 'x' }) }
    const dispatcher = createDispatcher({
      routes: routeTable([route()]), targets: new Map([['t', { name: 't', deliver: async () => {} }]]), log: recordingLogger(),
      skillsDir: '/nonexistent', timeoutMs: 5000, clock: () => 0,
    })
    // The environment is made per leased job, from that job (a token for its own repository).
    const worker = workerOf(dispatcher, runner, (leased) => leased.job.deliveryId === 'plain' ? undefined : async (ctx) => {
      seen.push(`${leased.job.deliveryId}:${ctx.signal.aborted ? 'aborted' : 'live'}`)
      return { GH_TOKEN: `token-of-${leased.job.deliveryId}`, GITHUB_TOKEN: null }
    })
    for (const deliveryId of ['a', 'plain', 'b']) {
      expect((await drive(worker, { payload: PAYLOAD, job: { deliveryId } })).outcomes).toEqual([{ kind: 'done' }])
    }
    expect(envs).toEqual([{ GH_TOKEN: 'token-of-a', GITHUB_TOKEN: null }, undefined, { GH_TOKEN: 'token-of-b', GITHUB_TOKEN: null }])
    expect(seen).toEqual(['a:live', 'b:live'])
    expect([worker.maxRuns, worker.ended]).toEqual([dispatcher.maxRuns, dispatcher.ended])
  })

  it('an environment that cannot be made fails the run before the agent starts, saying why', async () => {
    let runs = 0
    const runner: AgentRunner = { name: 'r', run: async () => (runs++, { ok: true, text: 'x' }) }
    const log = recordingLogger()
    const dispatcher = createDispatcher({
      routes: routeTable([route()]), targets: new Map([['t', { name: 't', deliver: async () => {} }]]), log,
      skillsDir: '/nonexistent', timeoutMs: 5000, clock: () => 0, agentRetry: { attempts: 1, firstDelayMs: 1000, maxDelayMs: 1000 },
    })
    const worker = workerOf(dispatcher, runner, () => async () => {
      throw new Error('installation 7 is suspended')
    })
    const { outcomes } = await drive(worker, { payload: PAYLOAD })
    expect(runs).toBe(0)
    expect(outcomes).toEqual([{ kind: 'failed', reason: 'the agent\'s environment could not be made: installation 7 is suspended' }])
  })

  it('says a run timed out after agent.timeout_seconds, not that it was cancelled', async () => {
    const runner: AgentRunner = {
      name: 'slow',
      run: (_input, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ ok: false, reason: 'aborted: the run was cancelled' }))),
    }
    const { run, log } = setup({ runner, timeoutMs: 50, agentRetry: { attempts: 1, firstDelayMs: 1000, maxDelayMs: 1000 } })
    const { outcomes } = await run()
    expect(outcomes).toEqual([{ kind: 'failed', reason: 'timed out after 0.05 s (agent.timeout_seconds)' }])
    expect(log.lines.at(-1)).toMatchObject({ message: 'agent run failed', fields: { reason: 'timed out after 0.05 s (agent.timeout_seconds)' } })
  })

  it('a run stopped by the end of the grace period is interrupted (it runs again at the next start), not failed', async () => {
    const stop = new AbortController()
    const runner: AgentRunner = {
      name: 'slow',
      run: (_input, { signal }) => new Promise((resolve) => {
        signal.addEventListener('abort', () => resolve({ ok: false, reason: 'aborted' }))
        setTimeout(() => stop.abort(), 10)
      }),
    }
    const { outcomes, job } = await setup({ runner }).run({ signal: stop.signal })
    expect(outcomes).toEqual([{ kind: 'interrupted' }])
    expect(job).toMatchObject({ state: 'queued', stage: 'run', attempts: 0 })
  })

  it('a delivery stopped by the end of the grace period is interrupted, its answer kept', async () => {
    const stop = new AbortController()
    const { run } = setup({ deliver: async () => { stop.abort(); throw new DeliveryError('t', 'aborted') } })
    const { outcomes, job } = await run({ signal: stop.signal })
    expect(outcomes).toEqual([{ kind: 'interrupted' }])
    expect(job).toMatchObject({ state: 'queued', stage: 'deliver', answer: 'review' })
  })

  it('a payload nested too deep to render fails its job with a logged reason instead of vanishing', async () => {
    let deep: Record<string, unknown> = { leaf: 1 }
    for (let i = 0; i < 5000; i++) deep = { a: deep }
    const { run, log, prompts } = setup({ route: route({ prompt: undefined }) })
    const { outcomes } = await run({ payload: deep as never })
    expect(prompts).toEqual([])
    expect(outcomes[0]).toMatchObject({ kind: 'failed', reason: expect.stringContaining('cannot build the prompt') })
    expect(log.lines.at(-1)).toMatchObject({ level: 'error', fields: { delivery: 'd1' } })
  })

  it('fails a job whose route no longer exists (a removed subscription), saying which', async () => {
    const { run } = setup()
    const { outcomes } = await run({ job: { route: 'gone' } })
    expect(outcomes).toEqual([{ kind: 'failed', reason: 'route "gone" no longer exists' }])
  })

  it('records the process groups a runner reports, for the cleanup after a crash', async () => {
    const runner: AgentRunner = { name: 'spawns', run: async (_input, ctx) => (ctx.onSpawn?.(4242), { ok: true, text: 'x' }) }
    const { processes } = await setup({ runner }).run()
    expect(processes).toEqual([4242])
  })
})
