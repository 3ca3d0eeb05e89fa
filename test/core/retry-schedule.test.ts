/**
 * Retry schedules (issue 25, item 7): deliveries and agent runs are tried again over minutes to hours, with
 * exponential backoff, jitter and `Retry-After` as a minimum; what another try cannot fix fails at once; the
 * schedules are configured and validated in config.yaml; the crash-loop rule leaves the agent's retries alone.
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_AGENT_RETRY, DEFAULT_DELIVERY_RETRY, retryDelay, scheduleSpanMs } from '../../src/core/jobs/lifecycle/retry-schedule.js'
import { crashLoop, MAX_RUNS } from '../../src/core/jobs/lifecycle/transitions.js'
import { runTry, openTry } from '../../src/core/jobs/worker/try.js'
import { parseConfig } from '../../src/core/plugin-api/load-config.js'
import type { AgentResult, AgentRunner } from '../../src/core/types.js'
import { recordingLogger } from '../../src/testing/context.js'
import { drive, leasedRecord, routeTable, testRoute, testWorker } from '../fixtures/dispatch.js'

const noJitter = () => 0.5

describe('retry schedules', () => {
  it('doubles from the first wait up to the longest, jittered by at most ±20 %; a Retry-After decides the wait instead, within the cap', () => {
    const s = { attempts: 8, firstDelayMs: 1000, maxDelayMs: 10_000 }
    expect([1, 2, 3, 4, 5].map((a) => retryDelay(s, a, undefined, noJitter))).toEqual([1000, 2000, 4000, 8000, 10_000])
    expect(retryDelay(s, 2, undefined, () => 0)).toBe(1600)
    expect(retryDelay(s, 2, undefined, () => 0.999_999)).toBe(2400)
    expect(retryDelay(s, 5, undefined, () => 0.999_999)).toBe(10_000) // the cap holds after the jitter
    expect(retryDelay(s, 1, 7000, noJitter)).toBe(7000) // asked for more than the backoff: waits as asked
    expect(retryDelay(s, 3, 1000, () => 0.999_999)).toBe(1000) // asked for less: comes back when told, no jitter
    expect(retryDelay(DEFAULT_DELIVERY_RETRY, 1, 1000, noJitter)).toBe(1000) // a Slack 429 "in 1 s" is not 3 minutes
    expect(retryDelay(s, 1, 0, noJitter)).toBe(1000) // "now" is taken as a second: no retry loop without a pause
    expect(retryDelay(s, 1, 3_600_000, noJitter)).toBe(10_000) // nor can it park the job past the cap
  })

  it('defaults: deliveries 8 tries over about 6 h, agent runs 5 tries over about 30 min', () => {
    expect(DEFAULT_DELIVERY_RETRY.attempts).toBe(8)
    expect(scheduleSpanMs(DEFAULT_DELIVERY_RETRY) / 3_600_000).toBeCloseTo(6.15, 1)
    expect(DEFAULT_AGENT_RETRY.attempts).toBe(5)
    expect(scheduleSpanMs(DEFAULT_AGENT_RETRY) / 60_000).toBe(29)
  })

  it('agent.retry and delivery.retry are read, defaulted and checked in config.yaml', () => {
    const config = parseConfig({ agent: { retry: { attempts: 3 } }, delivery: { retry: { first_delay_seconds: '30' } } })
    expect(config.agent.retry).toEqual({ attempts: 3, first_delay_seconds: 120, max_delay_seconds: 900 })
    expect(config.delivery.retry).toEqual({ attempts: 8, first_delay_seconds: 30, max_delay_seconds: 10_800 })
    expect(parseConfig({}).delivery.retry.attempts).toBe(8)
    let message = ''
    try {
      // The typo is the point: past what the config's type allows.
      parseConfig({ delivery: { retry: { first_delay_seconds: 600, max_delay_seconds: 60 } }, agent: { retry: { attempts: 0, first_delai_seconds: 5 } } } as unknown as Parameters<typeof parseConfig>[0])
    } catch (err) {
      message = String(err)
    }
    expect(message).toContain('delivery.retry: max_delay_seconds must be at least first_delay_seconds')
    expect(message).toMatch(/agent\.retry\.attempts: expected a whole number from 1 to 100/)
    expect(message).toMatch(/agent\.retry\.first_delai_seconds.*first_delay_seconds/)
  })
})

describe('agent runs are retried when another try may succeed', () => {
  const schedule = { attempts: 4, firstDelayMs: 60_000, maxDelayMs: 600_000 }

  function dispatcher(answers: AgentResult[], timeoutMs = 5000) {
    const log = recordingLogger()
    let runs = 0
    const runner: AgentRunner = { name: 'flaky', run: async () => answers[Math.min(runs++, answers.length - 1)] ?? { ok: true, text: 'x' } }
    const worker = testWorker({
      routes: routeTable([testRoute({ deliver: 't' })]), runner, targets: new Map([['t', { name: 't', deliver: async () => {} }]]), log,
      skillsDir: '/nonexistent', timeoutMs, clock: () => 0, agentRetry: schedule, random: noJitter,
    })
    return { worker, log, runs: () => runs }
  }

  it('a run that fails twice then answers is delivered once, after waits on agent.retry\'s schedule', async () => {
    const { worker, log, runs } = dispatcher([{ ok: false, reason: 'exited with code 1: overloaded' }, { ok: false, reason: 'HTTP 529', retryAfterMs: 300_000 }, { ok: true, text: 'review' }])
    const { outcomes, sleeps, job } = await drive(worker)
    expect(runs()).toBe(3)
    expect(outcomes.map((o) => o.kind)).toEqual(['retry', 'retry', 'done'])
    expect(sleeps).toEqual([60_000, 300_000]) // the second honours the API's Retry-After
    expect(job).toMatchObject({ state: 'done', answer: 'review', lastError: 'HTTP 529' })
    expect(log.lines.filter((l) => l.message === 'agent run failed, retrying').map((l) => l.fields?.attempt)).toEqual([1, 2])
  })

  it('a timeout is retried; a failure the runner marks not retryable and an empty answer fail at once', async () => {
    const timeout = dispatcher([{ ok: true, text: 'never' }], 20)
    const slow: AgentRunner = { name: 'slow', run: (_i, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ ok: false, reason: 'aborted' }))) }
    const slowWorker = testWorker({
      routes: routeTable([testRoute({ deliver: 't' })]), runner: slow, targets: new Map(), log: timeout.log, skillsDir: '/x', timeoutMs: 20, clock: () => 0,
      agentRetry: schedule, random: noJitter,
    })
    const timedOut = await drive(slowWorker)
    expect(timedOut.outcomes.map((o) => o.kind)).toEqual(['retry', 'retry', 'retry', 'failed'])
    expect(timedOut.job.lastError).toBe('timed out after 0.02 s (agent.timeout_seconds) (gave up after 4 tries; agent.retry.attempts is 4)')

    const config = dispatcher([{ ok: false, reason: 'program "claud" was not found on PATH', retryable: false }])
    expect((await drive(config.worker)).outcomes).toEqual([{ kind: 'failed', reason: 'program "claud" was not found on PATH' }])
    expect(config.runs()).toBe(1)

    const empty = dispatcher([{ ok: true, text: '  ' }])
    expect((await drive(empty.worker)).outcomes.map((o) => o.kind)).toEqual(['failed'])
    expect(empty.runs()).toBe(1)
  })

  it('the crash-loop rule counts the agent\'s retries in its budget, never below MAX_RUNS', async () => {
    const { worker } = dispatcher([{ ok: true, text: 'x' }])
    expect(worker.maxRuns).toBe(Math.max(MAX_RUNS, schedule.attempts))
    // Leased for the 4th time after three starts of which the last was a crash: a retrying worker runs it.
    const job = leasedRecord({ attempts: MAX_RUNS + 1, lastError: 'exited with code 1' })
    expect(crashLoop(job)).toMatch(/ended without an answer, the last one by the gateway stopping \(the last failure before it: exited with code 1\)/)
    expect(crashLoop(job, worker.maxRuns)).toBeUndefined()
    const table = { update: async (_id: string, _token: string, change: (j: typeof job) => typeof job) => change(job), recordProcess: () => {} }
    const open = openTry({ job, payload: {}, token: 't' }, table, { now: () => 0, leaseMs: 30_000, log: () => recordingLogger() })
    expect((await runTry(open, worker, 0)).kind).toBe('done')
    expect(crashLoop(leasedRecord({ attempts: schedule.attempts + 1 }), worker.maxRuns)).toMatch(`each of ${schedule.attempts} runs`)
  })
})
