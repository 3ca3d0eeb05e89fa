/**
 * Each honest outcome of a review job reached through a real `hookpilot serve`: done (posted), skipped (the
 * agent's answer is one of silent_outputs), superseded (before it ran, and after: the stale guard), failed (an
 * agent error; an empty answer), as `hookpilot jobs list` and `show` print them and as /metrics counts them.
 */
import { describe, expect, it } from 'vitest'
import { reviewHarness, settled, starts } from '../fixtures/review-harness.js'
import { sha } from '../fixtures/reviews.js'

const { start } = reviewHarness()

describe('every outcome, in the jobs view and the metrics', () => {
  it('done, skipped, superseded (queued, and running), failed (agent error, empty answer)', async () => {
    const { world, port } = await start({})
    const head = (label: string) => {
      const h = sha(`outcome-${label}`)
      world.open(h)
      return h
    }
    const done = await world.push(port, { pr: 21, head: head('done') })
    const skipped = await world.push(port, { pr: 22, head: head('skip'), title: 'skip' })
    const error = await world.push(port, { pr: 24, head: head('error'), title: 'error' })
    const empty = await world.push(port, { pr: 25, head: head('empty'), title: 'empty' })
    // PR 23: a push while the first run is held, then another: the second never runs, the first's answer is dropped.
    const held = sha('outcome-held')
    const running = await world.push(port, { pr: 23, head: held })
    await expect.poll(() => starts(world).some((r) => r.head === held)).toBe(true)
    const queued = await world.push(port, { pr: 23, head: head('queued') })
    const newest = await world.push(port, { pr: 23, head: head('newest') })
    world.open(held)
    const jobs = await settled(world)

    const job = (id: string) => jobs.get(id)
    expect(job(done.id)).toMatchObject({ state: 'done', url: expect.stringMatching(/#issuecomment-\d+$/) })
    expect(job(skipped.id)).toMatchObject({ state: 'skipped', note: `the agent answered "SKIP", one of the route's silent_outputs` })
    // The running job was marked by the first newer push (itself replaced later): the chain ends at the newest.
    expect(job(running.id)).toMatchObject({ state: 'superseded', supersededBy: job(queued.id)?.id })
    expect(job(queued.id)).toMatchObject({ state: 'superseded', supersededBy: job(newest.id)?.id })
    expect(job(newest.id)).toMatchObject({ state: 'done' })
    expect(job(error.id)).toMatchObject({ state: 'failed', lastError: expect.stringContaining('the model refused') })
    expect(job(empty.id)).toMatchObject({ state: 'failed', lastError: 'the agent answered nothing (an empty answer)' })
    expect([21, 22, 23, 24, 25].map((pr) => world.writes(pr).length)).toEqual([1, 0, 1, 0, 0])
    expect(starts(world).some((r) => r.head === sha('outcome-queued'))).toBe(false)

    // The table says each state, and why for the ones that did not post.
    const table = (await world.cli('list')).stdout
    for (const [id, state, why] of [
      [skipped.id, 'skipped', 'the agent answered "SKIP"'], [running.id, 'superseded', `superseded by job ${job(queued.id)?.id ?? ''}`],
      [empty.id, 'failed', 'the agent answered nothing'], [done.id, 'done', ''],
    ] as const) {
      expect(table).toMatch(new RegExp(`^${job(id)?.id ?? ''} +${state} .*${id}.*${why.replace(/[()]/g, '\\$&')}`, 'm'))
    }
    for (const state of ['done', 'skipped', 'superseded', 'failed']) {
      const listed = JSON.parse((await world.cli('list', '--state', state, '--json')).stdout) as Array<{ state: string }>
      expect(listed.map((j) => j.state), state).toEqual(Array<string>(state === 'done' || state === 'superseded' || state === 'failed' ? 2 : 1).fill(state))
    }
    const shown = (await world.cli('show', job(queued.id)?.id ?? '')).stdout
    expect(shown).toMatch(/^state: +superseded$/m)
    expect(shown).toMatch(new RegExp(`^replaced by: +job ${job(newest.id)?.id ?? ''}$`, 'm'))
    expect((await world.cli('show', job(newest.id)?.id ?? '')).stdout).toMatch(/^covers: +2 event\(s\)$/m)

    // /metrics counts each ending once, by outcome.
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
    const finished = (outcome: string) => Number(new RegExp(`^hookpilot_jobs_finished_total\\{route="pr-review",outcome="${outcome}"\\} (\\d+)$`, 'm').exec(metrics)?.[1])
    expect({ done: finished('done'), skipped: finished('skipped'), superseded: finished('superseded'), failed: finished('failed') }).toEqual({ done: 2, skipped: 1, superseded: 2, failed: 2 })
  }, 90_000)
})
