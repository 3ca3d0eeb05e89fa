/**
 * Crash recovery is fair and counted (issue 25, item 8; docs/durability.md, promise 3): after a `kill -9` of a
 * real `hookpilot serve`, the job whose agent it was running runs first at the next start, ahead of every
 * delivery queued behind it, and `hookpilot jobs show` counts both starts of its agent.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, type RunningCli } from '../fixtures/cli.js'
import { crash, durableSetup } from '../fixtures/durable.js'

const running: RunningCli[] = []
afterEach(() => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL')
})

describe('kill -9 during an agent run, then a restart', () => {
  it('the job that was running goes first, and both starts of its agent are counted', async () => {
    const world = await durableSetup({ agentMs: 1_500, concurrency: 1 })
    const first = await world.serve()
    running.push(first.cli)
    expect((await world.send(first.port, 1, 'delivery-1')).status).toBe(202)
    await expect.poll(() => world.agentLog().filter((e) => e.what === 'start').length, { interval: 10 }).toBe(1)
    // Queued behind it while its agent runs (one agent at a time).
    for (const pr of [2, 3, 4, 5]) expect((await world.send(first.port, pr, `delivery-${pr}`)).status).toBe(202)
    await crash(first)

    const second = await world.serve()
    running.push(second.cli)
    await expect.poll(() => world.posted().length, { timeout: 30_000, interval: 100 }).toBe(5)
    const starts = world.agentLog().filter((e) => e.what === 'start').map((e) => e.prompt.trim())
    // Before: it was queued again as due "now", after the four, and its review came last (the issue saw 25 s late).
    expect(starts).toEqual(['review 1', 'review 1', 'review 2', 'review 3', 'review 4', 'review 5'])
    expect(world.posted()).toEqual([1, 2, 3, 4, 5])

    const listed = await runCli(['jobs', 'list', '--json', '--config', world.config], { env: world.env })
    const jobs = JSON.parse(listed.stdout) as Array<{ id: string; deliveryId: string; runs: number }>
    const cut = jobs.find((j) => j.deliveryId === 'delivery-1')
    expect(cut?.runs).toBe(2)
    expect(jobs.filter((j) => j.deliveryId !== 'delivery-1').map((j) => j.runs)).toEqual([1, 1, 1, 1])
    const shown = await runCli(['jobs', 'show', cut?.id ?? '', '--config', world.config], { env: world.env })
    expect(shown.stdout).toMatch(/\nagent runs:\s+2\n/)
    second.cli.child.kill('SIGTERM')
    expect(await second.cli.exited).toBe(0)
  }, 60_000)
})
