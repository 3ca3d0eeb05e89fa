/**
 * Incremental reviews and old findings as a GitHub App: the real Octokit against the fake GitHub (its commit graph
 * answers the compare API; its review threads answer GraphQL as GitHub does, the App's login without `[bot]`),
 * and the memory backend's notes. The story is test/fixtures/incremental-review.ts's; gh tells it in
 * github-review-incremental-gh.system.test.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { DeliveryTarget } from '../../src/core/types.js'
import { githubCommentDelivery } from '../../src/plugins/targets/github-comment/github-comment-target.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { reviewNoteKey } from '../../src/plugins/targets/github-comment/review-memory-note.js'
import { readMemory } from '../../src/core/review/review-memory.js'
import { deliveryContext } from '../../src/testing/context.js'
import { answer, appTarget, BASE, finding, push, REPO, sha, story, storyWorld, type StoryWorld } from '../fixtures/incremental-review.js'

let world: StoryWorld
beforeAll(async () => {
  world = await storyWorld()
})
afterAll(() => world.api.close())

it('reviews the delta after a plain push and in full after a force-push, never posts a held finding twice, and resolves the threads of findings not raised again unless a person replied', async () => {
  await story(world.api, appTarget(world), 1, 'hookpilot-review[bot]')
  // Threads read and resolved over GraphQL, where the App is `hookpilot-review`: found as its own all the same.
  expect(world.api.requests().filter((r) => r === 'POST /graphql').length).toBeGreaterThanOrEqual(3)
})

it('a route that asks for no incremental reviews keeps no note and needs none', () => {
  const target = githubCommentDelivery({ mode: 'review' })
  const route = { deliverExtra: { repo: REPO, pr_number: '1' } } as unknown as Parameters<NonNullable<DeliveryTarget['notesNeeded']>>[0]
  expect(target.notesNeeded?.(route)).toMatch(/remember the last reviewed head/)
  expect(target.notesNeeded?.({ ...route, deliverExtra: { ...route.deliverExtra, incremental: 'false' } })).toBeUndefined()
  expect(githubCommentDelivery({ mode: 'sticky' }).notesNeeded?.(route)).toBeUndefined()
})

const [nullable, naming] = [finding(2, 'b may be null', 'major'), finding(3, 'c is a poor name', 'nit')]

it('a try stopped between the post and its record (kill -9, a lost lease): the next try finds the review, then resolves and remembers once', async () => {
  const { api } = world
  const target = appTarget(world)
  const notes = memoryState({ concurrency: 1, maxQueue: 10 }).notes!
  const [a, b] = [sha('crash-a'), sha('crash-b')]
  push(api, 3, a, [BASE])
  await target.deliver(answer(3, a, [nullable, naming]), { ...deliveryContext(), notes })
  push(api, 3, b, [a])
  // The review of B is posted, then the try dies recording it: nothing after the post runs.
  const dying = { ...deliveryContext(), notes, saveProgress: () => Promise.reject(new Error('killed')) }
  await expect(target.deliver(answer(3, b, [nullable]), dying)).rejects.toThrow('killed')
  expect(api.reviews(REPO, 3)).toHaveLength(2)
  expect(api.threads(REPO, 3).map((t) => t.resolved)).toEqual([false, false])
  expect(readMemory((await notes.get(reviewNoteKey('pr-review', REPO, '3')))?.value)?.head).toBe(a)

  // The job recovered: progress 0, the review found by its marker; the old thread resolved, B remembered.
  expect(await target.deliver(answer(3, b, [nullable]), { ...deliveryContext(), notes })).toMatchObject({ posted: true })
  expect(api.reviews(REPO, 3)).toHaveLength(2)
  expect(api.threads(REPO, 3).map((t) => t.resolved)).toEqual([false, true])
  expect(readMemory((await notes.get(reviewNoteKey('pr-review', REPO, '3')))?.value)?.head).toBe(b)
})
