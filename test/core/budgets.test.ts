/**
 * Budgets over a real note store (the memory backend's, compare-and-set on a version): room reserved per run,
 * settled to what the run used, concurrent reservations that never overspend, reservations a dead process left
 * charged when they run out or when their job runs again, and the warning at the line, once.
 */
import { describe, expect, it } from 'vitest'
import { createBudgets, type BudgetRules } from '../../src/core/dispatch/budgets.js'
import { budgetSubjects } from '../../src/core/dispatch/budget-subjects.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import type { NoteStore } from '../../src/core/jobs/lifecycle/notes.js'

const T = Date.UTC(2026, 10, 27, 12)
const PR = { repository: { full_name: 'octo/repo', owner: { login: 'octo' } }, pull_request: { number: 7 }, installation: { id: 42 } }
const rules = (limits: BudgetRules['limits'], more: Partial<BudgetRules> = {}): BudgetRules => ({
  limits, warnAt: 0.8, reserve: { usd: 0.25, tokens: 1000 }, holdMs: 60_000, ...more,
})
const notesOf = (): NoteStore => {
  const notes = memoryState({ concurrency: 1, maxQueue: 10 }).notes
  if (notes === undefined) throw new Error('the memory backend keeps notes')
  return notes
}

describe('budget subjects', () => {
  it('a GitHub pull request is charged to itself, its repository and its installation; a push to the last two', () => {
    expect(budgetSubjects(PR)).toEqual([
      { kind: 'pull_request', subject: 'octo/repo#7' }, { kind: 'repository_day', subject: 'octo/repo' }, { kind: 'installation_month', subject: 'installation 42' },
    ])
    expect(budgetSubjects({ repository: { full_name: 'octo/repo', owner: { login: 'octo' } } })).toEqual([
      { kind: 'repository_day', subject: 'octo/repo' }, { kind: 'installation_month', subject: 'octo' },
    ])
  })

  it('a GitLab merge request by its iid, its namespace as the organisation', () => {
    expect(budgetSubjects({ object_kind: 'merge_request', project: { path_with_namespace: 'g/p', namespace: 'g' }, object_attributes: { iid: 3 } })).toEqual([
      { kind: 'pull_request', subject: 'g/p!3' }, { kind: 'repository_day', subject: 'g/p' }, { kind: 'installation_month', subject: 'g' },
    ])
  })
})

describe('budgets', () => {
  it('reserves per run, refuses a run with no room left, and names the budget', async () => {
    const budgets = createBudgets(notesOf(), rules({ pull_request: { usd: 0.6 } }))
    const a = await budgets.reserve('1', PR, undefined, T)
    const b = await budgets.reserve('2', PR, undefined, T)
    const c = await budgets.reserve('3', PR, undefined, T)
    expect('reserved' in a && 'reserved' in b).toBe(true)
    expect(c).toEqual({ refused: expect.objectContaining({ kind: 'pull_request', subject: 'octo/repo#7', renewsAt: undefined }) as unknown })
    expect('refused' in c ? c.refused.reason : '').toMatch(/^budget pull_request of pull request octo\/repo#7 has no room: \$0\.00 of \$0\.60 spent, \$0\.50 held by running reviews, and a run reserves \$0\.25 \(costs\.budgets\.pull_request\)$/)
  })

  it('settles to what the run used: the room it did not use is free again', async () => {
    const budgets = createBudgets(notesOf(), rules({ pull_request: { usd: 0.6 } }))
    const a = await budgets.reserve('1', PR, undefined, T)
    if (!('reserved' in a)) throw new Error('refused')
    await budgets.settle(a.reserved, { inputTokens: 10, outputTokens: 10, costUsd: 0.05 }, T)
    // 0.05 spent: room for two runs of 0.25 more, not three.
    expect('reserved' in (await budgets.reserve('2', PR, undefined, T))).toBe(true)
    expect('reserved' in (await budgets.reserve('3', PR, undefined, T))).toBe(true)
    expect('refused' in (await budgets.reserve('4', PR, undefined, T))).toBe(true)
  })

  it('in tokens, and a later budget\'s refusal gives back the room the earlier ones reserved', async () => {
    const notes = notesOf()
    const budgets = createBudgets(notes, rules({ pull_request: { tokens: 10_000 }, repository_day: { tokens: 1500 } }))
    const a = await budgets.reserve('1', PR, undefined, T)
    expect('reserved' in a).toBe(true)
    const b = await budgets.reserve('2', PR, undefined, T)
    expect('refused' in b && b.refused.kind).toBe('repository_day')
    expect('refused' in b && b.refused.renewsAt).toBe(Date.UTC(2026, 10, 28))
    const pr = await notes.get('budget/pull_request/octo/repo#7')
    expect(Object.keys((pr?.value as { reserved: object }).reserved)).toEqual(['1'])
  })

  it('reserves the runner\'s bound where it gives one', async () => {
    const budgets = createBudgets(notesOf(), rules({ pull_request: { usd: 1 } }))
    expect('reserved' in (await budgets.reserve('1', PR, { usd: 0.9 }, T))).toBe(true)
    expect('refused' in (await budgets.reserve('2', PR, { usd: 0.2 }, T))).toBe(true)
  })

  it('fifty runs reserving at once on one store never hold more than the budget', async () => {
    const budgets = createBudgets(notesOf(), rules({ repository_day: { usd: 1 } }))
    const decided = await Promise.all(Array.from({ length: 50 }, (_, i) => budgets.reserve(String(i), PR, undefined, T)))
    expect(decided.filter((d) => 'reserved' in d)).toHaveLength(4)
  })

  it('a reservation its process never settled is charged when it runs out, and its job\'s next run replaces it', async () => {
    const notes = notesOf()
    const budgets = createBudgets(notes, rules({ pull_request: { usd: 1 } }))
    await budgets.reserve('dead', PR, undefined, T) // its process is killed: never settled
    await budgets.reserve('again', PR, undefined, T)
    // The job 'again' runs again after a crash: its earlier reservation is charged, a new one held.
    await budgets.reserve('again', PR, undefined, T + 1000)
    let note = (await notes.get('budget/pull_request/octo/repo#7'))?.value as { spentUsd: number; reserved: Record<string, unknown> }
    expect(note.spentUsd).toBeCloseTo(0.25, 10)
    expect(Object.keys(note.reserved).sort()).toEqual(['again', 'dead'])
    // Past its hold: charged at the next reservation, held by nobody.
    await budgets.reserve('later', PR, undefined, T + 61_000)
    note = (await notes.get('budget/pull_request/octo/repo#7'))?.value as typeof note
    expect(note.spentUsd).toBeCloseTo(0.75, 10)
    expect(Object.keys(note.reserved).sort()).toEqual(['later'])
  })

  it('warns once when the spend reaches the line', async () => {
    const budgets = createBudgets(notesOf(), rules({ pull_request: { usd: 1 } }, { reserve: { usd: 0.1, tokens: 0 } }))
    const warnings: string[] = []
    for (const [i, cost] of [0.5, 0.35, 0.05].entries()) {
      const r = await budgets.reserve(String(i), PR, undefined, T)
      if (!('reserved' in r)) throw new Error('refused')
      warnings.push(...(await budgets.settle(r.reserved, { inputTokens: 1, outputTokens: 1, costUsd: cost }, T)).warnings)
    }
    expect(warnings).toEqual(['budget pull_request/octo/repo#7 is 85 % used ($0.85 of $1.00)'])
  })

  it('a run that reported no usage is charged what it reserved', async () => {
    const notes = notesOf()
    const budgets = createBudgets(notes, rules({ pull_request: { usd: 1, tokens: 100_000 } }))
    const r = await budgets.reserve('1', PR, undefined, T)
    if (!('reserved' in r)) throw new Error('refused')
    await budgets.settle(r.reserved, undefined, T)
    expect((await notes.get('budget/pull_request/octo/repo#7'))?.value).toEqual({ spentUsd: 0.25, spentTokens: 1000, reserved: {} })
  })
})
