/**
 * `DeliveryTarget.started` (issue 32 item 5, issue 33 item 4): the dispatcher tells the route's target once per
 * try, right before the agent runs, after `promptVariables` and with what it answered (the head reviewed), under
 * the job's lease; beside the run, never before it; the answer is delivered (or the ending told, with the same
 * values) only once the target has returned; what it throws is logged and changes nothing. A job the kit ends
 * without running it (a crash loop) is told to the target too, so a check an earlier try marked is completed.
 */
import { expect, it } from 'vitest'
import type { JobOutcome, LeasedJob } from '../../src/core/jobs/lifecycle/state-backend.js'
import { runTry, type Try } from '../../src/core/jobs/worker/try.js'
import { MAX_RUNS } from '../../src/core/jobs/lifecycle/transitions.js'
import type { AgentAnswer, DeliveryTarget, EndedJob, JsonObject, StartedJob } from '../../src/core/types.js'
import { DeliveryError } from '../../src/core/errors.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { recordingLogger } from '../../src/testing/context.js'
import { leasedRecord, routeTable, testRoute, testWorker } from '../fixtures/dispatch.js'

const PAYLOAD: JsonObject = { number: 5, repository: { full_name: 'o/r' } }

/** A leased job whose lease confirmations are recorded in `events`. */
function leasedJob(events: string[], overrides: Parameters<typeof leasedRecord>[0] = {}): LeasedJob {
  return {
    job: leasedRecord(overrides), payload: PAYLOAD, signal: new AbortController().signal, superseded: new AbortController().signal,
    saveAnswer: async () => {}, saveProgress: async () => {}, saveUsage: async () => {}, recordProcess: () => {},
    confirmLease: async () => void events.push('lease confirmed'),
  }
}

/** A target recording every call; `started` runs `during` between its first and last event. */
function recordingTarget(events: string[], during: () => Promise<void> = async () => {}) {
  const starts: StartedJob[] = []
  const endings: EndedJob[] = []
  const target: DeliveryTarget = {
    name: 't',
    promptVariables: async () => (events.push('prompt variables'), { 'review.head': 'abc123' }),
    async started(job) {
      starts.push(job)
      events.push('started')
      await during()
      events.push('started returned')
    },
    deliver: async () => void events.push('deliver'),
    ended: async (job) => void (endings.push(job), events.push(`ended ${job.outcome}`)),
  }
  return { target, starts, endings }
}

/** The dispatcher's worker for one route delivering to `target`, its agent answering `answer()` (recorded in `events`). */
const worker = (target: DeliveryTarget, events: string[], answer: () => Promise<string>) => {
  const log = recordingLogger()
  return {
    log,
    run: testWorker({
      routes: routeTable([testRoute({ deliverExtra: { repo: '{repository.full_name}' }, silentOutputs: ['NOTHING'] })]),
      runner: { name: 'fake', run: async () => (events.push('agent runs'), { ok: true, text: await answer() }) },
      targets: new Map([['t', target]]), log, skillsDir: '/nonexistent', timeoutMs: 5000, clock: () => 0,
    }),
  }
}

it('is told once per try after the prompt variables, under the lease, beside the run; the answer is delivered only once it returned', async () => {
  const events: string[] = []
  let agentStarted = () => {}
  const running = new Promise<void>((resolve) => (agentStarted = resolve))
  // started() waits for the agent to be running: had the dispatcher awaited it before the run, this would hang.
  const { target, starts } = recordingTarget(events, () => running)
  const w = worker(target, events, async () => (agentStarted(), 'the review'))
  const outcome = await w.run(leasedJob(events, { attempts: 2 }))
  expect(outcome).toEqual({ kind: 'done', url: undefined })
  // The run and the start overlap; the delivery (under the lease the stored answer confirmed) comes after both.
  expect(events.filter((e) => e !== 'agent runs')).toEqual(['prompt variables', 'lease confirmed', 'started', 'started returned', 'deliver'])
  expect(events.indexOf('agent runs')).toBeLessThan(events.indexOf('started returned'))
  expect(starts).toEqual([{ route: 'pr', event: 'pull_request', deliveryId: 'd1', job: '1', extra: { repo: 'o/r' }, payload: PAYLOAD, attempt: 2, variables: { 'review.head': 'abc123' } }])
})

it('what it throws is logged and changes nothing: the review runs and is delivered', async () => {
  const events: string[] = []
  const { target } = recordingTarget(events, () => Promise.reject(new Error('GitHub answered 502')))
  const w = worker(target, events, async () => 'the review')
  expect(await w.run(leasedJob(events))).toEqual({ kind: 'done', url: undefined })
  expect(events.at(-1)).toBe('deliver')
  expect(w.log.lines.find((l) => l.message === 'the delivery target could not be told that the agent started')?.fields).toMatchObject({ target: 't', reason: 'GitHub answered 502' })
})

it('an ending waits for it too, and is told the same values; a try that never reached the agent tells none', async () => {
  const events: string[] = []
  let finishStart = () => {}
  const slowStart = new Promise<void>((resolve) => (finishStart = resolve))
  const { target, endings } = recordingTarget(events, () => slowStart)
  // The agent answers a silent output at once, while started() is still writing.
  const w = worker(target, events, async () => {
    setImmediate(finishStart)
    return 'NOTHING'
  })
  expect((await w.run(leasedJob(events))).kind).toBe('skipped')
  expect(events.filter((e) => e !== 'agent runs')).toEqual(['prompt variables', 'lease confirmed', 'started', 'started returned', 'lease confirmed', 'ended skipped'])
  expect(endings[0]?.variables).toEqual({ 'review.head': 'abc123' })

  // The prompt's values could not be had: the try fails before the run, and nothing was started.
  const failing: DeliveryTarget = { ...target, promptVariables: () => Promise.reject(new Error('no head')) }
  const none = worker(failing, [], async () => 'unused')
  expect((await none.run(leasedJob([]))).kind).toBe('failed')
  expect(endings[1]).toMatchObject({ outcome: 'failed' })
  expect(endings[1]?.variables).toBeUndefined()
})

it('a job the kit ends without running it (a crash loop) is told to its target, under its lease, before the ending is stored', async () => {
  const events: string[] = []
  const { target, endings } = recordingTarget(events)
  const w = worker(target, events, async () => 'unused')
  const runs = Math.max(MAX_RUNS, w.run.maxRuns ?? 0)
  const leased = leasedJob(events, { attempts: runs + 1 })
  // runTry reads only the try's job; the rest of a Try (its writes) is the pool's.
  const outcome: JobOutcome = await runTry({ leased } as Pick<Try, 'leased'> as Try, w.run, 0)
  expect(outcome).toMatchObject({ kind: 'failed', reason: expect.stringContaining(`during each of ${runs} runs`) })
  expect(events).toEqual(['lease confirmed', 'ended failed'])
  expect(endings[0]).toMatchObject({ job: '1', outcome: 'failed', reason: outcome.kind === 'failed' ? outcome.reason : '' })
})

it("a later try that delivers the saved answer without a run is given the run's values from the notes, and so is its ending", async () => {
  const notes = memoryState({ concurrency: 1, maxQueue: 10 }).notes
  if (notes === undefined) throw new Error('the memory backend keeps notes')
  const events: string[] = []
  const answers: AgentAnswer[] = []
  const { target, endings } = recordingTarget(events)
  let refuse = true
  const flaky: DeliveryTarget = {
    ...target,
    async deliver(answer) {
      answers.push(answer)
      // GitHub answered 502 on the first try: the answer is saved and delivered again later, without a run.
      if (refuse) throw new DeliveryError('t', 'HTTP 502', { retryable: true })
    },
  }
  const run = testWorker({
    routes: routeTable([testRoute({ deliverExtra: { repo: '{repository.full_name}' } })]),
    runner: { name: 'fake', run: async () => (events.push('agent runs'), { ok: true, text: 'review' }) },
    targets: new Map([['t', flaky]]), log: recordingLogger(), skillsDir: '/nonexistent', timeoutMs: 5000, clock: () => 0, notes,
  })
  expect((await run(leasedJob(events))).kind).toBe('retry')
  refuse = false
  const later = leasedJob([], { stage: 'deliver', answer: 'review', attempts: 2 })
  expect((await run(later)).kind).toBe('done')
  expect(events.filter((e) => e === 'agent runs')).toHaveLength(1)
  expect(answers.map((a) => a.variables)).toEqual([{ 'review.head': 'abc123' }, { 'review.head': 'abc123' }])
  // A try the pool ends unrun (a crash loop) tells its ending the same values.
  await run.endedUnrun?.(leasedJob([], { stage: 'deliver', answer: 'review', attempts: 9 }), { kind: 'failed', reason: 'crash loop' })
  expect(endings.at(-1)?.variables).toEqual({ 'review.head': 'abc123' })
})
