/**
 * After the 202: prompt (skills + template), the agent run within its bounds, delivery with retries that never
 * run the agent again, silent outputs, and a graceful close.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createDispatcher, type DispatcherParts } from '../../src/core/dispatcher.js'
import { DeliveryError } from '../../src/core/errors.js'
import { memoryQueue } from '../../src/core/queue.js'
import type { AgentAnswer, AgentInput, AgentJob, AgentRunner, DeliveryTarget, Route } from '../../src/core/types.js'
import { memoryIdempotencyStore } from '../../src/plugins/memory-idempotency/index.js'
import { recordingLogger } from '../fixtures/context.js'

const route = (overrides: Partial<Route> = {}): Route => ({
  name: 'pr', secrets: ['s'], events: [], prompt: 'PR {number}', skills: [], deliver: 't', deliverExtra: {},
  silentOutputs: [], rateLimit: 30, source: 'static', description: undefined, ...overrides,
})
const job = (r: Route = route(), claimKey: string | undefined = 'pr\u0000d1'): AgentJob => ({
  route: r, claimKey, event: { route: r.name, type: 'pull_request', deliveryId: 'd1', payload: { number: 5, repository: { full_name: 'o/r' } }, receivedAt: 0 },
})

function setup(overrides: Partial<DispatcherParts> & { answer?: string; deliver?: DeliveryTarget['deliver'] } = {}) {
  const log = recordingLogger()
  const prompts: string[] = []
  const delivered: AgentAnswer[] = []
  const sleeps: number[] = []
  const runner: AgentRunner = { name: 'fake', run: async (input) => (prompts.push(input.prompt), { ok: true, text: overrides.answer ?? 'review' }) }
  const target: DeliveryTarget = { name: 't', deliver: overrides.deliver ?? (async (a) => void delivered.push(a)) }
  const store = memoryIdempotencyStore()
  const dispatch = createDispatcher({
    runner, targets: new Map([['t', target]]), store, log, skillsDir: '/nonexistent', timeoutMs: 5000,
    signal: new AbortController().signal, sleep: async (ms) => void sleeps.push(ms), ...overrides,
  })
  return { dispatch, log, prompts, delivered, sleeps, store }
}

describe('dispatcher', () => {
  it('renders the prompt and deliver_extra from the payload', async () => {
    const { dispatch, prompts, delivered } = setup()
    await dispatch(job(route({ deliverExtra: { repo: '{repository.full_name}', pr_number: '{number}' } })))
    expect(prompts).toEqual(['PR 5'])
    expect(delivered[0]).toEqual({ route: 'pr', event: 'pull_request', deliveryId: 'd1', text: 'review', extra: { repo: 'o/r', pr_number: '5' } })
  })

  it('gives runners the prompt in parts too: the operator\'s text apart from the payload\'s values', async () => {
    const inputs: AgentInput[] = []
    const runner: AgentRunner = { name: 'r', run: async (input) => (inputs.push(input), { ok: true, text: 'x' }) }
    const { dispatch } = setup({ runner })
    await dispatch(job(route({ prompt: 'Review {repository.full_name}#{number}' })))
    await dispatch(job(route({ prompt: undefined })))
    expect(inputs[0]?.parts).toEqual({ instructions: 'Review {repository.full_name}#{number}', fields: { 'repository.full_name': 'o/r', number: '5' } })
    expect(inputs[0]?.prompt).toBe('Review o/r#5')
    expect(inputs[1]?.parts).toEqual({
      instructions: "Webhook event 'pull_request' on route 'pr': its payload is {payload}.",
      fields: { payload: JSON.stringify({ number: 5, repository: { full_name: 'o/r' } }, null, 2) },
    })
  })

  it('puts the first skill found before the prompt and warns about the missing ones', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skills-'))
    await mkdir(join(dir, 'review'))
    await writeFile(join(dir, 'review', 'SKILL.md'), 'Be terse.\n')
    await mkdir(join(dir, 'second'))
    await writeFile(join(dir, 'second', 'SKILL.md'), 'never loaded')
    const { dispatch, prompts, log } = setup({ skillsDir: dir })
    await dispatch(job(route({ skills: ['missing', 'review', 'second'] })))
    expect(prompts).toEqual(['Be terse.\n\nPR 5'])
    expect(log.lines.filter((l) => l.message === 'skill not loaded').map((l) => l.fields['skill'])).toEqual(['missing'])
  })

  it('delivers an empty answer and a bare SKIP (the seed rule) unless the route lists it as silent', async () => {
    for (const answer of ['', 'SKIP']) {
      const loud = setup({ answer })
      await loud.dispatch(job())
      expect(loud.delivered.map((a) => a.text)).toEqual([answer])
      const quiet = setup({ answer: `${answer}\n` })
      await quiet.dispatch(job(route({ silentOutputs: ['SKIP', ''] })))
      expect(quiet.delivered).toEqual([])
    }
  })

  it('retries a passing delivery failure with backoff and Retry-After, without running the agent again', async () => {
    let calls = 0
    const { dispatch, prompts, sleeps, log } = setup({
      deliver: async () => {
        calls++
        if (calls === 1) throw new DeliveryError('t', 'HTTP 503', { retryable: true })
        if (calls === 2) throw new DeliveryError('t', 'HTTP 429', { retryable: true, retryAfterMs: 7000 })
        if (calls === 3) throw new DeliveryError('t', 'network', { retryable: true })
      },
    })
    await dispatch(job())
    expect(calls).toBe(4)
    expect(prompts).toHaveLength(1)
    expect(sleeps).toEqual([1000, 7000, 4000])
    expect(log.lines.filter((l) => l.message === 'delivery failed, retrying')).toHaveLength(3)
    expect(log.lines.at(-1)).toMatchObject({ message: 'delivered', fields: { target: 't', attempt: 4 } })
  })

  it('does not retry a permanent failure, and logs route, delivery id, target and reason', async () => {
    let calls = 0
    const { dispatch, log } = setup({ deliver: async () => { calls++; throw new DeliveryError('t', 'HTTP 403 forbidden') } })
    await dispatch(job())
    expect(calls).toBe(1)
    expect(log.lines.at(-1)).toMatchObject({ level: 'error', message: 'delivery failed', fields: { route: 'pr', delivery: 'd1', target: 't', reason: 't: HTTP 403 forbidden' } })
  })

  it('gives up after the bounded number of tries', async () => {
    let calls = 0
    const { dispatch } = setup({ deliver: async () => { calls++; throw new DeliveryError('t', 'down', { retryable: true }) } })
    await dispatch(job())
    expect(calls).toBe(5)
  })

  it('a failed run releases its claim; a failed delivery keeps it (no second run, no second post)', async () => {
    const failing = setup({ runner: { name: 'f', run: async () => ({ ok: false, reason: 'exit 1' }) } })
    await failing.store.claim('pr\u0000d1', 60_000)
    await failing.dispatch(job())
    expect(await failing.store.claim('pr\u0000d1', 60_000)).toBe(true)
    expect(failing.log.lines.at(-1)).toMatchObject({ level: 'error', message: 'agent run failed', fields: { reason: 'exit 1' } })

    const undeliverable = setup({ deliver: async () => { throw new DeliveryError('t', 'nope') } })
    await undeliverable.store.claim('pr\u0000d1', 60_000)
    await undeliverable.dispatch(job())
    expect(await undeliverable.store.claim('pr\u0000d1', 60_000)).toBe(false)
  })

  it('a runner that throws is a failed run, not a crash', async () => {
    const { dispatch, log } = setup({ runner: { name: 'x', run: async () => { throw new Error('kaboom') } } })
    await dispatch(job())
    expect(log.lines.at(-1)).toMatchObject({ message: 'agent run failed', fields: { reason: 'kaboom' } })
  })

  it('a runner whose run() throws before returning a promise is a failed run that releases its claim', async () => {
    const runner = { name: 'sync', run: () => { throw new Error('thrown synchronously') } } as unknown as AgentRunner
    const { dispatch, log, store } = setup({ runner })
    await store.claim('pr\u0000d1', 60_000)
    await dispatch(job())
    expect(log.lines.at(-1)).toMatchObject({ message: 'agent run failed', fields: { reason: 'thrown synchronously' } })
    expect(await store.claim('pr\u0000d1', 60_000)).toBe(true)
  })

  it('stops retrying when the gateway closes during a backoff, and says why', async () => {
    const shutdown = new AbortController()
    let calls = 0
    const { dispatch, log } = setup({
      signal: shutdown.signal,
      sleep: async () => void shutdown.abort(),
      deliver: async () => { calls++; throw new DeliveryError('t', 'HTTP 503', { retryable: true }) },
    })
    await dispatch(job())
    expect(calls).toBe(1)
    expect(log.lines.at(-1)).toMatchObject({ level: 'error', message: 'delivery failed', fields: { reason: 'the gateway closed before the next try' } })
  })

  it('stops a run that passes the timeout through its signal', async () => {
    const runner: AgentRunner = {
      name: 'slow',
      run: (_input, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ ok: false, reason: 'aborted' }))),
    }
    const { dispatch, log } = setup({ runner, timeoutMs: 50 })
    await dispatch(job())
    expect(log.lines.at(-1)).toMatchObject({ message: 'agent run failed', fields: { reason: 'aborted' } })
  })
})

describe('memoryQueue', () => {
  it('runs at most `concurrency` jobs at once and refuses past max_queue', async () => {
    const queue = memoryQueue({ concurrency: 2, maxQueue: 3 })
    let running = 0
    let peak = 0
    const releases: Array<() => void> = []
    queue.start(async () => {
      running++
      peak = Math.max(peak, running)
      await new Promise<void>((r) => releases.push(r))
      running--
    })
    const accepted = Array.from({ length: 6 }, () => queue.enqueue(job()))
    expect(accepted).toEqual([true, true, true, true, true, false])
    await expect.poll(() => releases.length).toBe(2)
    while (releases.length) {
      releases.shift()?.()
      await new Promise((r) => setImmediate(r))
    }
    await expect.poll(() => running).toBe(0)
    expect(peak).toBe(2)
    expect(await queue.close(1000)).toBe(true)
  })

  it('close waits for running jobs within the grace period and refuses new ones', async () => {
    const queue = memoryQueue({ concurrency: 1, maxQueue: 10 })
    let finished = false
    queue.start(async () => {
      await new Promise((r) => setTimeout(r, 50))
      finished = true
    })
    queue.enqueue(job())
    expect(await queue.close(5000)).toBe(true)
    expect(finished).toBe(true)
    expect(queue.enqueue(job())).toBe(false)
  })

  it('close reports false when the grace period ends first', async () => {
    const queue = memoryQueue({ concurrency: 1, maxQueue: 10 })
    queue.start(() => new Promise(() => {}))
    queue.enqueue(job())
    expect(await queue.close(20)).toBe(false)
  })
})
