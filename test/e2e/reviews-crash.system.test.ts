/**
 * A review bot's `hookpilot serve` killed with `kill -9` between the pushes of a pull request, and during the
 * agent's run, then started again on the same SQLite file: still exactly one review, of the newest head, and a
 * redelivery of every event afterwards posts nothing. Each kill falls at a moment drawn from a seeded random
 * source (the seed is printed; HOOKPILOT_TEST_SEED replays it).
 */
import { describe, expect, it } from 'vitest'
import { crash } from '../fixtures/durable.js'
import { redeliverAll, reviewHarness, settled, starts } from '../fixtures/review-harness.js'
import { footer, sha, short, type ReviewWorld } from '../fixtures/reviews.js'
import { seededRandom } from '../fixtures/seed.js'

const { start, restart } = reviewHarness()
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One comment on `pr`, created once, of `head`; and the delivery `last` done, every other superseded. */
async function oneReviewOf(world: ReviewWorld, pr: number, head: string, ids: readonly string[], replay: string): Promise<void> {
  await expect.poll(() => world.writes(pr).length, { timeout: 30_000 }).toBeGreaterThan(0)
  const jobs = await settled(world)
  const writes = world.writes(pr)
  expect(writes.map((w) => w.kind), `comments written${replay}`).toEqual(['created'])
  expect(writes[0]?.body).toContain(`Review of ${head}: looks fine.`)
  expect(footer(writes[0])).toMatch(new RegExp(`^<sub>Review of ${short(head)} · `))
  expect(ids.map((id) => jobs.get(id)?.state), `job states${replay}`).toEqual([...ids.slice(1).map(() => 'superseded'), 'done'])
}

describe('kill -9 of hookpilot serve, then a restart on the same state file', () => {
  it('between the pushes: one review of the newest head', async () => {
    const random = seededRandom('reviews: kill -9 between the pushes')
    const replay = ` (seed ${random.seed}: replay with HOOKPILOT_TEST_SEED=${random.seed})`
    const { world, port, serving } = await start({ debounceSeconds: 3, cancelInProgress: true })
    const heads = [sha('between-1'), sha('between-2'), sha('between-3')]
    world.open(heads[2] ?? '')
    const first = await world.push(port, { pr: 11, head: heads[0] ?? '' })
    expect(first.status).toBe(202)
    await pause(random.next() * 500)
    await crash(serving)
    const second = await restart(world)
    const rest = [await world.push(second.port, { pr: 11, head: heads[1] ?? '' }), await world.push(second.port, { pr: 11, head: heads[2] ?? '' })]
    const ids = [first.id, ...rest.map((r) => r.id)]
    await oneReviewOf(world, 11, heads[2] ?? '', ids, replay)
    // The first job waited for its debounce through the crash, so the review covers all three pushes; only a
    // restart slower than the debounce may have started it (then the second push stopped it: cancel_in_progress).
    const ran = starts(world).map((r) => r.head)
    if (ran.length === 1) expect((await settled(world)).get(rest[1]?.id ?? '')?.covers, `covers${replay}`).toBe(3)
    else expect(ran, `agent runs${replay}`).toEqual([heads[0], heads[2]])
    expect(world.writes(11).every((w) => !w.body.includes(`Review of ${heads[0] ?? ''}`))).toBe(true)
    await redeliverAll(world, second.port, ids, 11)
  }, 90_000)

  it.each([true, false])('during the agent run (cancel_in_progress %s): one review of the newest head', async (cancel) => {
    const random = seededRandom(`reviews: kill -9 during the run, cancel_in_progress ${cancel}`)
    const replay = ` (seed ${random.seed}: replay with HOOKPILOT_TEST_SEED=${random.seed})`
    const { world, port, serving } = await start({ debounceSeconds: 1, cancelInProgress: cancel })
    const pr = cancel ? 12 : 13
    const heads = [sha(`during-${cancel}-1`), sha(`during-${cancel}-2`), sha(`during-${cancel}-3`)]
    world.open(heads[2] ?? '')
    const before = [await world.push(port, { pr, head: heads[0] ?? '' }), await world.push(port, { pr, head: heads[1] ?? '' })]
    await expect.poll(() => starts(world).map((r) => r.head), { timeout: 15_000 }).toEqual([heads[1]])
    await pause(random.next() * 300)
    await crash(serving)
    const second = await restart(world)
    // The job that was running is recovered and runs again (its run held at the gate), or is still queued.
    const last = await world.push(second.port, { pr, head: heads[2] ?? '' })
    // Without cancel_in_progress the newest job waits for the recovered run: let it finish, its answer dropped.
    if (!cancel) world.open(heads[1] ?? '')
    const ids = [...before.map((b) => b.id), last.id]
    await oneReviewOf(world, pr, heads[2] ?? '', ids, replay)
    expect(starts(world).filter((r) => r.head === heads[2]), `runs of the newest head${replay}`).toHaveLength(1)
    expect(starts(world).filter((r) => r.head === heads[0]), `runs of the first head${replay}`).toEqual([])
    await redeliverAll(world, second.port, ids, pr)
  }, 90_000)
})
