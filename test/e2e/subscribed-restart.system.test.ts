/**
 * A subscribed route's jobs survive a restart (docs/durability.md, promise 3; docs/subscriptions.md): after a
 * `kill -9` of a real `hookpilot serve`, the next start reads the subscriptions before its queue leases, so the
 * job that was running and the one queued behind it run to done, not `route "…" no longer exists`.
 */
import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, type RunningCli } from '../fixtures/cli.js'
import { crash, durableSetup, type Durable } from '../fixtures/durable.js'

const running: RunningCli[] = []
afterEach(() => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL')
})

const cli = (world: Durable, args: readonly string[]) => runCli([...args, '--config', world.config], { env: world.env })

/** A subscription `reviews`, a gateway that ran its first job and queued its second, then was killed (-9). */
async function crashedWithSubscribedJobs(): Promise<Durable> {
  const world = await durableSetup({ agentMs: 1_500, concurrency: 1 })
  const secret = `sub-${randomUUID()}`
  const made = await cli(world, [
    'subscribe', 'reviews', '--secret', secret, '--events', 'pull_request', '--prompt', 'review {number}',
    '--deliver', 'github_comment', '--deliver-extra', 'repo=octo/repo', '--deliver-extra', 'pr_number={number}',
  ])
  expect(made.code, made.output).toBe(0)
  const first = await world.serve()
  running.push(first.cli)
  await first.cli.waitFor(/subscriptions loaded: reviews/)
  expect((await world.sendTo(first.port, 'reviews', secret, 1, 'delivery-1')).status).toBe(202)
  await expect.poll(() => world.agentLog().filter((e) => e.what === 'start').length, { interval: 10 }).toBe(1)
  expect((await world.sendTo(first.port, 'reviews', secret, 2, 'delivery-2')).status).toBe(202) // queued behind it
  await crash(first)
  return world
}

const jobsOf = async (world: Durable) =>
  JSON.parse((await cli(world, ['jobs', 'list', '--json'])).stdout) as Array<{ route: string; state: string; lastError?: string }>

describe('kill -9 with jobs of a subscription stored, then a restart', () => {
  it('the subscription is back before the queue leases: its jobs run to done', async () => {
    const world = await crashedWithSubscribedJobs()

    const second = await world.serve()
    running.push(second.cli)
    await expect.poll(() => world.posted().length, { timeout: 30_000, interval: 100 }).toBe(2)
    expect(world.posted()).toEqual([1, 2])
    expect((await jobsOf(world)).map((j) => [j.route, j.state])).toEqual([['reviews', 'done'], ['reviews', 'done']])
    expect(second.cli.output()).not.toContain('no longer exists')
    second.cli.child.kill('SIGTERM')
    expect(await second.cli.exited).toBe(0)
  }, 60_000)

  it('a job whose subscription was removed meanwhile fails with a reason naming its route', async () => {
    const world = await crashedWithSubscribedJobs()
    const removed = await cli(world, ['remove', 'reviews'])
    expect(removed.code, removed.output).toBe(0)
    const second = await world.serve()
    running.push(second.cli)
    await expect.poll(async () => (await jobsOf(world)).map((j) => j.state), { timeout: 30_000, interval: 200 }).toEqual(['failed', 'failed'])
    for (const job of await jobsOf(world)) expect(job.lastError).toBe('route "reviews" no longer exists')
    expect(world.posted()).toEqual([])
    second.cli.child.kill('SIGTERM')
    expect(await second.cli.exited).toBe(0)
  }, 60_000)
})
