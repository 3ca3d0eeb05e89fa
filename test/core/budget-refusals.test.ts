/**
 * What the dispatcher does with a budget's answer (issue 35, item 2), over real budgets on the memory backend's
 * notes: `when_exceeded: wait` holds a day's refusal until the next UTC day and skips a pull request's (it never
 * renews); a refusal is said once per pull request through the route's target (its notice where it offers the
 * pull request, nothing but the check for a review-mode target without one, the notice as an answer otherwise),
 * naming the budget and when it renews, never its amounts; each refusal counted in /metrics; the 80 % warning is
 * logged once; a repository's budgets, handed over by the policy, tighten the config's.
 */
import { describe, expect, it } from 'vitest'
import { budgetRules, createBudgets, type BudgetLimits } from '../../src/core/dispatch/budgets.js'
import { parseConfig } from '../../src/index.js'
import type { NoteStore } from '../../src/core/jobs/lifecycle/notes.js'
import type { PullRequestHost } from '../../src/core/code-host-types.js'
import type { AgentAnswer, DeliveryTarget, EndedJob, Route } from '../../src/core/types.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { recordingLogger } from '../../src/testing/context.js'
import { drive, routeTable, testRoute, testWorker } from '../fixtures/dispatch.js'
import { SECRET, testGateway } from '../fixtures/gateway.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'

const TOKEN = 'scrape-token-0123456789'

const T = Date.UTC(2026, 10, 27, 12)
const PR = { number: 7, repository: { full_name: 'octo/repo', owner: { login: 'octo' } }, pull_request: { number: 7 }, installation: { id: 42 } }
const notesOf = (): NoteStore => {
  const notes = memoryState({ concurrency: 1, maxQueue: 10 }).notes
  if (notes === undefined) throw new Error('the memory backend keeps notes')
  return notes
}

/** A host that records the notices written through it. */
function recordingHost(): PullRequestHost & { notices: string[] } {
  const notices: string[] = []
  const never = () => Promise.reject(new Error('not asked in these tests'))
  return { notices, repo: 'octo/app', number: 7, facts: never, changedPaths: never, readFile: never, reply: never, notice: async (body) => (notices.push(body), 'https://example.test/notice'), react: never, permission: never }
}

/** A target that records answers and endings; `review` answers review documents; `host` offers the pull request. */
function recordingTarget(options: { review?: boolean; host?: PullRequestHost } = {}) {
  const delivered: AgentAnswer[] = []
  const ended: EndedJob[] = []
  const target: DeliveryTarget = {
    name: 't',
    deliver: async (answer) => void delivered.push(answer),
    ended: async (job) => void ended.push(job),
    answerFormat: () => (options.review === true ? 'review' : 'text'),
    ...(options.host === undefined ? {} : { pullRequest: () => options.host }),
  }
  return { target, delivered, ended }
}

/** A worker over real budgets (`limits`, `costs.budgets`' other defaults); each run costs `costUsd`. */
function budgeted(limits: BudgetLimits, target: DeliveryTarget, options: { whenExceeded?: 'skip' | 'wait'; costUsd?: number; route?: Partial<Route>; now?: () => number } = {}) {
  const notes = notesOf()
  const log = recordingLogger()
  let runs = 0
  const rules = { ...budgetRules(parseConfig({}).costs, 60_000), limits }
  const now = options.now ?? (() => T)
  const worker = testWorker({
    routes: routeTable([testRoute({ deliver: 't', ...options.route })]),
    runner: { name: 'paid', run: async () => (runs++, { ok: true, text: 'reviewed', usage: { model: 'm', inputTokens: 10, outputTokens: 10, costUsd: options.costUsd ?? 0.2 } }) },
    targets: new Map([['t', target]]),
    log,
    skillsDir: '/nonexistent',
    timeoutMs: 10_000,
    clock: now,
    notes,
    budgets: createBudgets(notes, rules),
    whenExceeded: options.whenExceeded,
  })
  const job = (id: string) => drive(worker, { payload: PR, job: { id, deliveryId: `d${id}` }, now })
  return { job, log, runs: () => runs }
}

describe('a budget with no room', () => {
  it("when_exceeded: wait holds a day's refusal until the next UTC day, when it runs; a pull request's budget never renews, so its job is skipped", async () => {
    let now = T
    const { target } = recordingTarget()
    const day = budgeted({ repository_day: { usd: 0.3 } }, target, { whenExceeded: 'wait', now: () => now })
    expect((await day.job('1')).job.state).toBe('done')
    const held = await day.job('2')
    expect(held.outcomes).toEqual([{ kind: 'wait', at: Date.UTC(2026, 10, 28), reason: expect.stringMatching(/^budget repository_day of repository octo\/repo today \(UTC\) has no room: .*\(costs\.budgets\.repository_day\)$/) as unknown }])
    // Its try and its run were not counted: it waits queued, as it was.
    expect(held.job).toMatchObject({ state: 'queued', attempts: 0, runs: 0, notBefore: Date.UTC(2026, 10, 28) })
    now = Date.UTC(2026, 10, 28)
    expect((await day.job('2')).job.state).toBe('done')
    expect(day.runs()).toBe(2)

    const pr = budgeted({ pull_request: { usd: 0.3 } }, target, { whenExceeded: 'wait' })
    await pr.job('1')
    expect((await pr.job('2')).job).toMatchObject({ state: 'skipped', note: expect.stringMatching(/^budget pull_request of pull request octo\/repo#7 has no room/) as unknown })
  })

  it("is said once per pull request through the target's notice where it offers the pull request; never posted as a review", async () => {
    const host = recordingHost()
    const { target, delivered, ended } = recordingTarget({ review: true, host })
    const { job } = budgeted({ pull_request: { usd: 0.3 } }, target)
    await job('1')
    for (const id of ['2', '3']) expect((await job(id)).job.state).toBe('skipped')
    expect(delivered.map((a) => a.text)).toEqual(['reviewed'])
    expect(host.notices).toHaveLength(1)
    expect(host.notices[0]).toContain("**No review:** this pull request's reviews have used their budget (the gateway's `costs.budgets.pull_request`).")
    expect(host.notices[0]).toContain('`hookpilot jobs retry 2`')
    // The amounts are the gateway's configuration: the notice names none (the job's reason keeps them).
    expect(host.notices[0]).not.toMatch(/\$|0\.3/)
    // Each refused head's check hears it (review mode's `ended`: neutral, with the reason).
    expect(ended.map((e) => [e.job, e.outcome])).toEqual([['2', 'skipped'], ['3', 'skipped']])
    expect(ended[0]?.reason).toMatch(/^budget pull_request of pull request octo\/repo#7 has no room: \$0\.20 of \$0\.30 spent/)
  })

  it('a review-mode target without the pull request posts nothing: its check says it; another target gets the notice as its answer, once', async () => {
    const review = recordingTarget({ review: true })
    const reviewing = budgeted({ pull_request: { usd: 0.3 } }, review.target)
    for (const id of ['1', '2', '3']) await reviewing.job(id)
    expect(review.delivered.map((a) => a.text)).toEqual(['reviewed'])
    expect(review.ended.map((e) => e.outcome)).toEqual(['skipped', 'skipped'])

    const plain = recordingTarget()
    const commenting = budgeted({ repository_day: { usd: 0.3 } }, plain.target)
    for (const id of ['1', '2', '3']) await commenting.job(id)
    expect(plain.delivered.map((a) => a.text.split('\n')[1])).toEqual([undefined, "**No review:** this repository's reviews have used today's budget (UTC) (the gateway's `costs.budgets.repository_day`). It renews at 2026-11-28 00:00 UTC; pushes after that are reviewed."])
    expect(plain.delivered[0]?.text).toBe('reviewed')
  })

  it("periods renew on the gateway's clock, in UTC: a day's at the next midnight, a month's on the first of the next month (December's in January)", async () => {
    const budgets = createBudgets(notesOf(), { ...budgetRules(parseConfig({}).costs, 60_000), limits: { installation_month: { usd: 0.1 }, repository_day: { usd: 100 } } })
    const month = (t: number) => budgets.reserve('1', PR, undefined, t).then((r) => ('refused' in r ? [r.refused.kind, r.refused.renewsAt] : []))
    expect(await month(Date.UTC(2026, 10, 27, 23, 59))).toEqual(['installation_month', Date.UTC(2026, 11, 1)])
    expect(await month(Date.UTC(2026, 11, 31, 23, 59))).toEqual(['installation_month', Date.UTC(2027, 0, 1)])
  })

  it('each refusal is counted in /metrics by route and budget', async () => {
    const gateway = await testGateway({
      config: { metrics: { enabled: true, token: TOKEN }, costs: { budgets: { pull_request: { usd: 0.3 }, reserve_usd: 0.25 } } } as never,
      agent: () => ({ ok: true, text: 'reviewed', usage: { model: 'm', inputTokens: 1, outputTokens: 1, costUsd: 0.2 } }),
    })
    try {
      const body = githubPayload('pull_request', 'opened')
      for (const id of ['m1', 'm2', 'm3']) {
        expect((await gateway.gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET, id), body })).status).toBe(202)
        await gateway.idle()
      }
      expect((await gateway.state.jobs.list({})).map((j) => j.state).sort()).toEqual(['done', 'skipped', 'skipped'])
      const { url } = await gateway.gateway.listen({ port: 0 })
      const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()
      expect(text).toContain('hookpilot_budget_refusals_total{route="pr",budget="pull_request"} 2')
    } finally {
      await gateway.gateway.close()
    }
  })

  it('the warning at 80 % is logged once per budget and period', async () => {
    const { target } = recordingTarget()
    const { job, log } = budgeted({ repository_day: { usd: 1 } }, target, { costUsd: 0.3 })
    for (const id of ['1', '2', '3']) expect((await job(id)).job.state).toBe('done')
    const warnings = log.lines.filter((l) => l.level === 'warn' && l.message.startsWith('budget '))
    expect(warnings.map((l) => l.message)).toEqual(['budget repository_day/octo/repo/2026-11-27 is 90 % used ($0.90 of $1.00)'])
  })
})

describe("a repository's budgets (its policy file)", () => {
  const notes = notesOf
  const rules = (limits: BudgetLimits) => ({ ...budgetRules(parseConfig({}).costs, 60_000), reserve: { usd: 0.25, tokens: 1000 }, limits })

  it("refuse at the policy's limit where it is lower than the config's, naming the policy file", async () => {
    const budgets = createBudgets(notes(), rules({ pull_request: { usd: 1 } }))
    const policy = { pull_request: { usd: 0.3 } }
    expect('reserved' in (await budgets.reserve('1', PR, undefined, T, policy))).toBe(true)
    const refused = await budgets.reserve('2', PR, undefined, T, policy)
    expect(refused).toEqual({ refused: expect.objectContaining({ kind: 'pull_request', by: 'policy' }) as unknown })
    expect('refused' in refused && refused.refused.reason).toMatch(/has no room: \$0\.00 of \$0\.30 spent, \$0\.25 held by running reviews, and a run reserves \$0\.25 \(budgets\.pull_request of the repository's policy file\)$/)
  })

  it("never loosen the config's: a policy's higher limit leaves the config's; each of usd and tokens is the tighter one", async () => {
    const budgets = createBudgets(notes(), rules({ pull_request: { usd: 0.6, tokens: 100_000 } }))
    expect('reserved' in (await budgets.reserve('1', PR, undefined, T, { pull_request: { usd: 50, tokens: 1500 } }))).toBe(true)
    // Tokens: the policy's 1,500 refuse a second run of 1,000 (the config's 100,000 would not)...
    const tokens = await budgets.reserve('2', PR, undefined, T, { pull_request: { usd: 50, tokens: 1500 } })
    expect('refused' in tokens && [tokens.refused.by, tokens.refused.reason.includes('0 of 1500 tokens spent, 1000 held')]).toEqual(['policy', true])
    // ...dollars: the config's $0.60 holds two runs of $0.25, never a third, whatever the policy's $50 says.
    expect('reserved' in (await budgets.reserve('2', PR, undefined, T, { pull_request: { usd: 50 } }))).toBe(true)
    const usd = await budgets.reserve('3', PR, undefined, T, { pull_request: { usd: 50 } })
    expect('refused' in usd && [usd.refused.by, usd.refused.reason.includes('of $0.60 spent')]).toEqual(['config', true])
  })

  it('apply where the config sets none; the month stays the gateway\'s', async () => {
    const budgets = createBudgets(notes(), rules({}))
    expect('reserved' in (await budgets.reserve('1', PR, undefined, T, { repository_day: { tokens: 1000 } }))).toBe(true)
    const refused = await budgets.reserve('2', PR, undefined, T, { repository_day: { tokens: 1000 } })
    expect('refused' in refused && refused.refused.kind).toBe('repository_day')
    // Without the policy, the same repository has no budget at all.
    expect('reserved' in (await budgets.reserve('3', PR, undefined, T))).toBe(true)
    // The type has no month: a policy read from a file never names one (policy-file.ts refuses the key).
    const month = { installation_month: { usd: 0 } } as never
    expect('reserved' in (await budgets.reserve('4', PR, undefined, T, month))).toBe(true)
  })

  it('settle and warn against the limit the run reserved under', async () => {
    const budgets = createBudgets(notes(), { ...rules({ pull_request: { usd: 10 } }), reserve: { usd: 0.1, tokens: 0 } })
    const r = await budgets.reserve('1', PR, undefined, T, { pull_request: { usd: 1 } })
    if (!('reserved' in r)) throw new Error('refused')
    expect((await budgets.settle(r.reserved, { inputTokens: 1, outputTokens: 1, costUsd: 0.9 }, T)).warnings).toEqual(['budget pull_request/octo/repo#7 is 90 % used ($0.90 of $1.00)'])
  })
})
