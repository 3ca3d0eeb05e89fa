/**
 * A delivery target's prompt variables (`promptVariables`, how review mode gives `{review.head}` and the rest):
 * asked before the run with the route's rendered deliver_extra and the state store's notes, placed in the
 * template (in the whole prompt and in its parts), winning over a payload field of the same name; a target that
 * cannot say fails the try, a passing failure is retried on the agent's schedule. And the startup refusal of a
 * route whose target needs notes on a backend that keeps none.
 */
import { describe, expect, it } from 'vitest'
import { DeliveryError } from '../../src/core/errors.js'
import { checkNotes } from '../../src/core/gateway/wiring.js'
import type { StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
import { renderTemplate, templateFields } from '../../src/core/routes/template.js'
import type { AgentInput, DeliveryTarget, NoteStore, PromptContext, PromptRequest } from '../../src/core/types.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { recordingLogger } from '../../src/testing/context.js'
import { drive, routeTable, testRoute, testWorker } from '../fixtures/dispatch.js'

const PAYLOAD = { number: 5, review: { head: 'from the payload', body: 'a pull_request_review event' }, repository: { full_name: 'o/r' } }

describe('prompt variables', () => {
  it('are placed by their whole name and win over the payload; other fields still come from it', () => {
    const variables = { 'review.head': 'abc123', 'review.mode': 'incremental' }
    const template = '{review.mode} review of {review.head} ({review.body}) in {repository.full_name}; {review.missing}'
    expect(renderTemplate(template, PAYLOAD, variables)).toBe('incremental review of abc123 (a pull_request_review event) in o/r; {review.missing}')
    expect(templateFields(template, PAYLOAD, variables)).toEqual({ 'review.mode': 'incremental', 'review.head': 'abc123', 'review.body': 'a pull_request_review event', 'repository.full_name': 'o/r' })
  })

  it('the dispatcher asks the route\'s target before the run, with deliver_extra rendered and the notes, and the agent gets them', async () => {
    const notes = memoryState({ concurrency: 1, maxQueue: 10 }).notes!
    const asked: { request: PromptRequest, ctx: PromptContext }[] = []
    const inputs: AgentInput[] = []
    const target: DeliveryTarget = {
      name: 't',
      promptVariables: async (request, ctx) => (asked.push({ request, ctx }), { 'review.head': 'abc123' }),
      deliver: async () => {},
    }
    const worker = testWorker({
      routes: routeTable([testRoute({ prompt: 'Review {review.head} of #{number}', deliverExtra: { repo: '{repository.full_name}' } })]),
      runner: { name: 'fake', run: async (input) => (inputs.push(input), { ok: true, text: 'ok' }) },
      targets: new Map([['t', target]]), log: recordingLogger(), skillsDir: '/nonexistent', timeoutMs: 5000, clock: () => 0, notes,
    })
    const { outcomes } = await drive(worker, { payload: PAYLOAD })
    expect(outcomes).toEqual([{ kind: 'done' }])
    expect(asked[0]?.request).toEqual({ route: 'pr', event: 'pull_request', deliveryId: 'd1', extra: { repo: 'o/r' }, payload: PAYLOAD })
    expect(asked[0]?.ctx.notes).toBe(notes)
    expect(inputs[0]?.prompt).toBe('Review abc123 of #5')
    expect(inputs[0]?.parts?.fields).toEqual({ 'review.head': 'abc123', number: '5' })
  })

  it('a target that cannot say fails the try before the agent runs; a passing failure is tried again later', async () => {
    const runs: string[] = []
    const worker = (error: Error) => testWorker({
      routes: routeTable([testRoute()]),
      runner: { name: 'fake', run: async () => (runs.push('ran'), { ok: true, text: 'ok' }) },
      targets: new Map([['t', { name: 't', promptVariables: () => Promise.reject(error), deliver: async () => {} }]]),
      log: recordingLogger(), skillsDir: '/nonexistent', timeoutMs: 5000, clock: () => 0, agentRetry: { attempts: 2, firstDelayMs: 1000, maxDelayMs: 1000 }, random: () => 0.5,
    })
    const refused = await drive(worker(new DeliveryError('t', 'repo "x" is not an owner/repo name')))
    expect(refused.outcomes).toEqual([{ kind: 'failed', reason: 'cannot build the prompt: its values from the t target: t: repo "x" is not an owner/repo name' }])
    const passing = await drive(worker(new DeliveryError('t', 'GitHub answered 502', { retryable: true })))
    expect(passing.outcomes.map((o) => o.kind)).toEqual(['retry', 'failed'])
    expect(runs).toEqual([])
  })
})

describe('a route whose target needs notes', () => {
  const target: DeliveryTarget = { name: 't', notesNeeded: (route) => (route.deliverExtra['incremental'] === 'false' ? undefined : 'its reviews remember the last reviewed head'), deliver: async () => {} }
  const targets = new Map([['t', target]])
  const backend = (notes: NoteStore | undefined) => ({ name: 'my-table', notes }) as unknown as StateBackend

  it('is refused at start on a backend that keeps none, naming the route, why, and what to change', () => {
    expect(() => checkNotes([testRoute({ name: 'pr-review' }), testRoute({ name: 'full', deliverExtra: { incremental: 'false' } })], targets, backend(undefined), 'my-table')).toThrow(
      'route "pr-review" needs notes in the state store (its reviews remember the last reviewed head), but the my-table backend (state.driver: my-table) keeps none: use a backend that keeps notes (every built-in one: memory, sqlite, redis, postgres) or turn them off for this route',
    )
  })

  it('starts on a backend that keeps notes, and a route that turned them off starts anywhere', () => {
    expect(() => checkNotes([testRoute()], targets, backend(memoryState({ concurrency: 1, maxQueue: 1 }).notes), 'memory')).not.toThrow()
    expect(() => checkNotes([testRoute({ deliverExtra: { incremental: 'false' } })], targets, backend(undefined), 'my-table')).not.toThrow()
  })
})
