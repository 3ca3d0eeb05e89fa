/**
 * What the dispatcher does for a target beyond delivering (issue 32, items 1, 5 and 6), over a real gateway on
 * the memory backend: a receipt that asks for a follow-up job (the pull request's head moved during the run) gets
 * one, queued like an event, once per follow-up key however often it is asked, and none when a newer event of the
 * group was accepted; the target is told of jobs that end without a delivery it decided (silent output, failed);
 * and the runner is told the answer format the target wants for the route.
 */
import { afterEach, expect, it } from 'vitest'
import type { AgentAnswer, DeliveryReceipt, DeliveryTarget, EndedJob, JsonObject } from '../../src/core/types.js'
import { testGateway, SECRET, type TestGateway } from '../fixtures/gateway.js'
import { githubHeaders } from '../fixtures/github.js'

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const t of gateways.splice(0)) await t.gateway.close()
})

const ROUTE = { secret: SECRET, events: ['pull_request'], deliver: 'moving', concurrency: { key: '{repository.full_name}#{number}' }, silent_outputs: ['NOTHING'] }
const payload = (head: string, number = 1): JsonObject => ({ action: 'synchronize', number, after: head, repository: { full_name: 'o/r' }, pull_request: { number, head: { sha: head } } })
const send = (t: TestGateway, id: string, body: JsonObject) => {
  const raw = Buffer.from(JSON.stringify(body))
  return t.gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', raw, SECRET, id), body: raw })
}

/**
 * A target that plays GitHub's head: an answer for another head than `heads[pr]` is superseded with a follow-up
 * of the current head; every call and every ending it is told of is recorded.
 */
function movingTarget(heads: Map<number, string>) {
  const delivered: AgentAnswer[] = []
  const ended: EndedJob[] = []
  const target: DeliveryTarget = {
    name: 'moving',
    answerFormat: () => 'review',
    async deliver(answer): Promise<DeliveryReceipt> {
      delivered.push(answer)
      const pr = answer.payload?.['number'] as number
      const answered = (answer.payload?.['pull_request'] as { head: { sha: string } }).head.sha
      const head = heads.get(pr) ?? answered
      if (answered === head) return { posted: true, url: `https://example.test/${pr}/${head}` }
      return { posted: false, outcome: 'superseded', reason: `head moved to ${head}`, followUp: { key: `o/r#${pr}@${head}`, payload: { ...payload(head, pr) } } }
    },
    async ended(job) {
      ended.push(job)
    },
  }
  return { target, delivered, ended }
}

it('the head moved during the run: a follow-up job of the new head is queued and reviews it; asked again, it is one job', async () => {
  const heads = new Map([[1, 'b'.repeat(40)]])
  const moving = movingTarget(heads)
  const t = await testGateway({ routes: { pr: ROUTE }, plugins: [{ name: 'moving', deliveryTargets: [moving.target] }] })
  gateways.push(t)
  expect((await send(t, 'push-a', payload('a'.repeat(40)))).status).toBe(202)
  await t.idle()
  const jobs = await t.state.jobs.list({})
  expect(jobs.map((j) => [j.deliveryId, j.state]).sort()).toEqual([[`follow-up:o/r#1@${'b'.repeat(40)}`, 'done'], ['push-a', 'superseded']])
  // The follow-up ran the agent with the new head in its payload, and the review of it was posted.
  expect(t.runs.map((r) => r.deliveryId)).toEqual(['push-a', `follow-up:o/r#1@${'b'.repeat(40)}`])
  expect(moving.delivered.at(-1)?.payload).toMatchObject({ after: 'b'.repeat(40), pull_request: { head: { sha: 'b'.repeat(40) } } })
  // The runner was told the target wants a review document.
  expect(t.runs.map((r) => r.format)).toEqual(['review', 'review'])
  // The target decided the superseded ending itself: it is not told of it again.
  expect(moving.ended).toEqual([])

  // Another late event of the old head asks for the same follow-up: the key is done, nothing more is queued.
  expect((await send(t, 'push-a-again', payload('a'.repeat(40)))).status).toBe(202)
  await t.idle()
  expect((await t.state.jobs.list({})).filter((j) => j.deliveryId.startsWith('follow-up:'))).toHaveLength(1)
  expect(t.log.lines.some((l) => l.message === 'follow-up job: duplicate')).toBe(true)
})

it('no follow-up when a newer event of the group was accepted while the answer was on its way: that job reviews the new head', async () => {
  const heads = new Map<number, string>()
  const moving = movingTarget(heads)
  let release = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  const t = await testGateway({
    routes: { pr: ROUTE }, plugins: [{ name: 'moving', deliveryTargets: [moving.target] }],
    agent: async (input) => {
      if (input.deliveryId === 'push-a') await held
      return { ok: true, text: 'review' }
    },
  })
  gateways.push(t)
  expect((await send(t, 'push-a', payload('a'.repeat(40), 2))).status).toBe(202)
  await expect.poll(() => t.runs.length).toBe(1)
  heads.set(2, 'c'.repeat(40))
  expect((await send(t, 'push-c', payload('c'.repeat(40), 2))).status).toBe(202)
  release()
  await t.idle()
  const jobs = await t.state.jobs.list({})
  expect(jobs.map((j) => [j.deliveryId, j.state]).sort()).toEqual([['push-a', 'superseded'], ['push-c', 'done']])
  // Dropped by the stale guard before delivery: the target is told, so a check it started does not stay open.
  expect(moving.ended.map((e) => [e.deliveryId, e.outcome])).toEqual([['push-a', 'superseded']])
})

it('the target is told of a silent output and of a failed run, with the rendered deliver_extra, the payload and the job', async () => {
  const moving = movingTarget(new Map())
  const t = await testGateway({
    routes: { pr: { ...ROUTE, deliver_extra: { repo: '{repository.full_name}', pr_number: '{number}' } } },
    plugins: [{ name: 'moving', deliveryTargets: [moving.target] }],
    agent: (input) => (input.deliveryId === 'quiet' ? { ok: true, text: 'NOTHING' } : { ok: false, reason: 'the model is gone', retryable: false }),
  })
  gateways.push(t)
  expect((await send(t, 'quiet', payload('d'.repeat(40), 3))).status).toBe(202)
  expect((await send(t, 'broken', payload('e'.repeat(40), 4))).status).toBe(202)
  await t.idle()
  const jobs = await t.state.jobs.list({})
  expect(moving.ended.map((e) => [e.deliveryId, e.outcome, e.extra, e.job])).toEqual([
    ['quiet', 'skipped', { repo: 'o/r', pr_number: '3' }, jobs.find((j) => j.deliveryId === 'quiet')?.id],
    ['broken', 'failed', { repo: 'o/r', pr_number: '4' }, jobs.find((j) => j.deliveryId === 'broken')?.id],
  ])
  expect(moving.ended[1]?.reason).toContain('the model is gone')
  expect(moving.delivered).toEqual([])
})
