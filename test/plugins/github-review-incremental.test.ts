/**
 * Incremental reviews and old findings as a GitHub App: the real Octokit against the fake GitHub (its commit graph
 * answers the compare API; its review threads answer GraphQL as GitHub does, the App's login without `[bot]`),
 * and the memory backend's notes. The story is test/fixtures/incremental-review.ts's; gh tells it in
 * github-review-incremental-gh.system.test.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { DeliveryTarget } from '../../src/core/types.js'
import { githubCommentDelivery } from '../../src/plugins/targets/github-comment/github-comment-target.js'
import { appTarget, REPO, story, storyWorld, type StoryWorld } from '../fixtures/incremental-review.js'

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
