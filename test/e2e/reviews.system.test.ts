/**
 * docs/reviews.md's promise, end to end with real parts: a pull request pushed several times in quick succession
 * gets at most two agent runs and exactly one review, of its newest head, in one sticky comment. `hookpilot serve`
 * is a child process on a real SQLite file; the real `gh` posts to a local fake GitHub API; the agent is a
 * process whose runs are logged and held at a gate, so the tests wait on what happened, never on a clock.
 * The crash cases are in reviews-crash.system.test.ts, the outcomes in reviews-outcomes.system.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { redeliverAll, reviewHarness, settled, starts } from '../fixtures/review-harness.js'
import { waitForDeath } from '../fixtures/process.js'
import { footer, REPO, sha, short } from '../fixtures/reviews.js'

const { start } = reviewHarness()

describe('a burst of pushes within the debounce window', () => {
  it('three synchronize events give one agent run and one comment, of the last head, covering 3; redeliveries post nothing', async () => {
    const { world, port } = await start({ debounceSeconds: 3 })
    const heads = [sha('burst-1'), sha('burst-2'), sha('burst-3')]
    for (const head of heads) world.open(head)
    const began = Date.now()
    const ids: string[] = []
    for (const head of heads) {
      const answer = await world.push(port, { pr: 1, head })
      expect(answer.status).toBe(202)
      ids.push(answer.id)
    }
    expect(Date.now() - began, 'the three pushes took longer than the debounce window').toBeLessThan(3_000)
    await expect.poll(() => world.writes(1).length, { timeout: 20_000 }).toBe(1)
    const jobs = await settled(world)
    expect(starts(world).map((r) => r.head)).toEqual([heads[2]])
    const [write] = world.writes(1)
    expect(write?.kind).toBe('created')
    expect(write?.body).toContain(`Review of ${heads[2]}: looks fine.`)
    expect(footer(write)).toMatch(new RegExp(`^<sub>Review of ${short(heads[2] ?? '')} · .* UTC · covers 3 pushes</sub>$`))
    const last = jobs.get(ids[2] ?? '')
    expect(last).toMatchObject({ state: 'done', covers: 3 })
    // Each push superseded the one before it, which had not started.
    expect(jobs.get(ids[0] ?? '')).toMatchObject({ state: 'superseded', supersededBy: jobs.get(ids[1] ?? '')?.id })
    expect(jobs.get(ids[1] ?? '')).toMatchObject({ state: 'superseded', supersededBy: last?.id })
    await redeliverAll(world, port, ids, 1)
  }, 60_000)
})

describe('a push while the agent runs', () => {
  it.each([true, false])('cancel_in_progress %s: one posted review, of the newest head, after at most two runs', async (cancel) => {
    const { world, port } = await start({ cancelInProgress: cancel })
    const [older, newer] = [sha(`running-${cancel}-1`), sha(`running-${cancel}-2`)]
    world.open(newer)
    const first = await world.push(port, { pr: 2, head: older })
    await expect.poll(() => starts(world).map((r) => r.head)).toEqual([older])
    const second = await world.push(port, { pr: 2, head: newer })
    expect(second.status).toBe(202)
    const run = starts(world)[0]
    if (cancel) {
      // The run is stopped: its process is gone without having answered, and the newer head runs.
      expect(await waitForDeath(run?.pid ?? 0, 10_000)).toBe(true)
    } else {
      // The newer job waits for the running one (one job of a group at a time); then the older answer is dropped.
      expect(starts(world)).toHaveLength(1)
      world.open(older)
    }
    await expect.poll(() => world.writes(2).length, { timeout: 20_000 }).toBe(1)
    const jobs = await settled(world)
    const runs = world.runs()
    expect(runs.filter((r) => r.what === 'start').map((r) => r.head)).toEqual([older, newer])
    expect(runs.filter((r) => r.what === 'end').map((r) => r.head)).toEqual(cancel ? [newer] : [older, newer])
    const newest = jobs.get(second.id)
    expect(newest).toMatchObject({ state: 'done' })
    expect(jobs.get(first.id)).toMatchObject({ state: 'superseded', supersededBy: newest?.id, note: expect.stringMatching(/superseded by job/) })
    const [write] = world.writes(2)
    expect(write?.body).toContain(`Review of ${newer}: looks fine.`)
    expect(footer(write)).toMatch(new RegExp(`^<sub>Review of ${short(newer)} · `))
    await redeliverAll(world, port, [first.id, second.id], 2)
  }, 60_000)
})

describe('sticky mode across reruns', () => {
  it('five pushes, each rerun with `hookpilot jobs retry`, leave one comment, edited nine times, its footer naming each head', async () => {
    const { world, port } = await start({})
    const heads = [1, 2, 3, 4, 5].map((i) => sha(`rerun-${i}`))
    for (const [i, head] of heads.entries()) {
      world.open(head)
      const pushed = await world.push(port, { pr: 3, head })
      await expect.poll(() => world.writes(3).length, { timeout: 20_000 }).toBe(2 * i + 1)
      const job = (await settled(world)).get(pushed.id)
      expect(job?.state).toBe('done')
      const retried = await world.cli('retry', job?.id ?? '')
      expect(retried.stdout).toMatch(/is queued again: running the agent again from the start/)
      await expect.poll(() => world.writes(3).length, { timeout: 20_000 }).toBe(2 * i + 2)
      expect((await settled(world)).get(pushed.id)?.state).toBe('done')
    }
    const writes = world.writes(3)
    expect(writes.map((w) => w.kind)).toEqual(['created', ...Array<string>(9).fill('edited')])
    expect(new Set(writes.map((w) => w.id)).size).toBe(1)
    writes.forEach((w, i) => expect(footer(w)).toMatch(new RegExp(`^<sub>Review of ${short(heads[Math.floor(i / 2)] ?? '')} · `)))
    expect(world.api.comments(REPO, 3)).toMatchObject([{ edits: 9 }])
    expect(starts(world)).toHaveLength(10)
  }, 90_000)

  it('`hookpilot jobs retry` of a job whose group has a newer one posts nothing: its answer would be of an older head', async () => {
    const { world, port } = await start({ checkHead: false })
    const [older, newer] = [sha('retry-old-1'), sha('retry-old-2')]
    world.open(older)
    world.open(newer)
    const first = await world.push(port, { pr: 4, head: older })
    await expect.poll(() => world.writes(4).length, { timeout: 20_000 }).toBe(1)
    await world.push(port, { pr: 4, head: newer })
    await expect.poll(() => world.writes(4).length, { timeout: 20_000 }).toBe(2)
    const old = (await settled(world)).get(first.id)
    expect(old?.state).toBe('done')
    expect((await world.cli('retry', old?.id ?? '')).code).toBe(0)
    const after = (await settled(world)).get(first.id)
    // The comment must still speak of the newest head: the rerun's answer, of the older head, is stale.
    const reviewed = world.writes(4).map((w) => /^<sub>Review of ([0-9a-f]{7}) /.exec(footer(w))?.[1])
    expect(reviewed, 'the rerun of the older job overwrote the review of the newer head').toEqual([short(older), short(newer)])
    expect(after?.state).toBe('superseded')
  }, 60_000)
})

describe('check_head', () => {
  it('a head moved on GitHub without a webhook: the job ends superseded, naming both heads, posts nothing, and a follow-up job reviews the new head once', async () => {
    const { world, port } = await start({})
    const [reviewed, moved] = [sha('check-1'), sha('check-2')]
    world.open(reviewed)
    world.api.setHead(REPO, 5, moved) // a push whose webhook never reached the gateway
    const pushed = await world.push(port, { pr: 5, head: reviewed, quiet: true })
    // The follow-up's run for the moved head starts once the stale answer is dropped; nothing was posted for it.
    await expect.poll(() => starts(world).map((r) => r.head)).toEqual([reviewed, moved])
    expect(world.writes(5)).toEqual([])
    const reason = `the pull request's head moved to ${short(moved)} after this event (${short(reviewed)}); ${short(moved)} is reviewed next`
    // The follow-up runs (held at its gate) while the stale job is already ended.
    const listed = await world.jobs()
    const job = listed.find((j) => j.deliveryId === pushed.id)
    const followUp = listed.find((j) => j.deliveryId === `follow-up:${REPO}#5@${moved}`)
    expect(job).toMatchObject({ state: 'superseded', note: `superseded by job ${followUp?.id}: ${reason}` })
    world.open(moved)
    await expect.poll(() => world.writes(5).length).toBe(1)
    expect(world.writes(5)[0]?.body).toContain(`Review of ${moved}`)
    expect((await settled(world)).get(`follow-up:${REPO}#5@${moved}`)).toMatchObject({ state: 'done' })
    const shown = await world.cli('show', job?.id ?? '')
    expect(shown.stdout).toMatch(/^state: +superseded$/m)
    expect(shown.stdout).toContain(reason)
    expect(starts(world)).toHaveLength(2)
  }, 60_000)
})
