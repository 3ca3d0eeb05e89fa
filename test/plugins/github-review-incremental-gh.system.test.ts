/**
 * Incremental reviews and old findings through a person's gh: the real `gh api` (REST compare, GraphQL review
 * threads and resolveReviewThread) against the fake GitHub, and the memory backend's notes. The story is
 * test/fixtures/incremental-review.ts's.
 */
import { afterAll, beforeAll, it } from 'vitest'
import { githubCommentDelivery } from '../../src/plugins/targets/github-comment/github-comment-target.js'
import { story, storyWorld, type StoryWorld } from '../fixtures/incremental-review.js'

let world: StoryWorld
beforeAll(async () => {
  world = await storyWorld()
})
afterAll(() => world.api.close())

it('the same story through gh: the delta reviewed after a plain push, held findings not posted twice, old threads resolved unless a person replied', async () => {
  const { api } = world
  await story(api, githubCommentDelivery({ env: api.env(), login: api.login, timeoutMs: 30_000 }), 2, api.login)
}, 90_000)
