/**
 * Incremental reviews of a merge request, against the fake GitLab (its commit graph answers the compare API as
 * GitLab does: from the merge base, a 404 for a commit it does not have) and the memory backend's notes: head A
 * reviewed in full; push B on top of A: the prompt is told `incremental`, the previous head and the open
 * findings, and the note then remembers B; a force-push C (not on top of B): `full`; a route with
 * `incremental: "false"` keeps no note and needs none.
 */
import { afterEach, expect, it } from 'vitest'
import { startFakeGitlab, type FakeGitlab } from '../../src/dev/gitlab/server.js'
import type { FakeGitlabDiff } from '../../src/dev/gitlab/state.js'
import { gitlabMrDelivery } from '../../src/plugins/targets/gitlab-mr/gitlab-mr-target.js'
import { mrReviewNoteKey } from '../../src/plugins/targets/gitlab-mr/mr-review-memory.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { readMemory } from '../../src/core/review/review-memory.js'
import type { AgentAnswer, DeliveryTarget, NoteStore, Route } from '../../src/core/types.js'
import { deliveryContext, pluginContext } from '../../src/testing/context.js'
import { mergeRequestHook } from '../fixtures/gitlab.js'
import { sha } from '../fixtures/reviews.js'

const PROJECT = 'gitlabhq/gitlab-test'
const DIFFS: readonly FakeGitlabDiff[] = [
  { old_path: 'src/a.ts', new_path: 'src/a.ts', diff: '@@ -1,4 +1,6 @@\n const a = 1\n-const b = 2\n+const b = 3\n+const c = 4\n const d = 5\n+const e = 6\n const f = 7\n' },
]
const FINDING = { path: 'src/a.ts', line: 2, severity: 'major', title: 'b changed its meaning', body: 'Callers still expect 2.' }

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

async function world(): Promise<{ api: FakeGitlab, target: DeliveryTarget, notes: NoteStore }> {
  const api = await startFakeGitlab()
  cleanup.push(() => api.close())
  const target = gitlabMrDelivery({ token: api.token, apiUrl: api.apiUrl, timeoutMs: 2_000, http: { baseDelayMs: 10 } })
  return { api, target, notes: memoryState({ concurrency: 1, maxQueue: 10 }).notes! }
}

function request(head: string, extra: Record<string, string> = {}): AgentAnswer {
  return {
    route: 'mr-review',
    event: 'Merge Request Hook',
    deliveryId: `delivery-${head}`,
    text: JSON.stringify({ summary: 'One problem.', findings: [FINDING] }),
    extra: { project: PROJECT, mr_iid: '1', ...extra },
    payload: mergeRequestHook('update', { project: PROJECT, iid: 1, head }) as AgentAnswer['payload'],
  }
}

const variables = (target: DeliveryTarget, notes: NoteStore, head: string, extra?: Record<string, string>) =>
  target.promptVariables!(request(head, extra), { ...pluginContext(), notes })

it('reviews A in full, then B on top of A incrementally with the open findings, then a force-push C in full', async () => {
  const { api, target, notes } = await world()
  const [a, b, c] = [sha('a'), sha('b'), sha('c')]
  api.push(PROJECT, 1, a, DIFFS)
  const base = api.mergeRequest(PROJECT, 1).versions[0]!.base_commit_sha

  expect(await variables(target, notes, a)).toEqual({
    'review.head': a, 'review.base': base, 'review.previous_head': '', 'review.mode': 'full', 'review.open_findings': 'none',
  })
  expect(await target.deliver(request(a), { ...deliveryContext(), notes })).toMatchObject({ posted: true })
  expect(readMemory((await notes.get(mrReviewNoteKey('mr-review', PROJECT, '1')))?.value)?.head).toBe(a)

  api.push(PROJECT, 1, b, DIFFS) // a plain push: B's parent is A
  const told = await variables(target, notes, b)
  expect(told).toMatchObject({ 'review.head': b, 'review.previous_head': a, 'review.mode': 'incremental' })
  expect(told['review.open_findings']).toBe('- major src/a.ts:2: b changed its meaning')
  // Asked the other way round: the previous head's commits the new head lacks (none: an ancestor).
  expect(api.requests().some((r) => r.startsWith(`GET /projects/${encodeURIComponent(PROJECT)}/repository/compare?from=${b}&to=${a} → 200`))).toBe(true)
  await target.deliver(request(b), { ...deliveryContext(), notes })
  expect(readMemory((await notes.get(mrReviewNoteKey('mr-review', PROJECT, '1')))?.value)?.head).toBe(b)

  api.push(PROJECT, 1, c, DIFFS, { parents: [a] }) // a force-push: B is not in C
  expect(await variables(target, notes, c)).toMatchObject({ 'review.previous_head': b, 'review.mode': 'full' })
})

it('a previous head GitLab no longer has (the compare\'s 404) is a full review; the same head again is not compared', async () => {
  const { api, target, notes } = await world()
  const [gone, d] = [sha('gone'), sha('d')]
  api.push(PROJECT, 1, d, DIFFS)
  await notes.put(mrReviewNoteKey('mr-review', PROJECT, '1'), { v: 1, head: gone, base: '', findings: [] }, 0)
  expect(await variables(target, notes, d)).toMatchObject({ 'review.previous_head': gone, 'review.mode': 'full' })

  await target.deliver(request(d), { ...deliveryContext(), notes })
  const compares = api.requests().filter((r) => r.includes('/repository/compare')).length
  expect(await variables(target, notes, d)).toMatchObject({ 'review.previous_head': d, 'review.mode': 'full' })
  expect(api.requests().filter((r) => r.includes('/repository/compare'))).toHaveLength(compares)
})

it('deliver_extra.incremental: "false" keeps no note and needs none; a bad value says what to write', async () => {
  const { api, target, notes } = await world()
  const a = sha('a')
  api.push(PROJECT, 1, a, DIFFS)
  const route = (extra: Record<string, string>) => ({ name: 'mr-review', deliverExtra: { project: PROJECT, mr_iid: '1', ...extra } }) as unknown as Route
  expect(target.notesNeeded!(route({}))).toMatch(/incremental: "false"/)
  expect(target.notesNeeded!(route({ incremental: 'false' }))).toBeUndefined()

  await target.deliver(request(a, { incremental: 'false' }), { ...deliveryContext(), notes })
  expect(await notes.get(mrReviewNoteKey('mr-review', PROJECT, '1'))).toBeUndefined()
  expect(await variables(target, notes, a, { incremental: 'false' })).toMatchObject({ 'review.mode': 'full', 'review.previous_head': '' })
  await expect(variables(target, notes, a, { incremental: 'maybe' })).rejects.toThrow(/incremental/)
})
