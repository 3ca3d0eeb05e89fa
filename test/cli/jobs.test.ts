/**
 * `hookpilot jobs` as an operator types it: its errors say what to change, on a real state file.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../src/core/log/logger.js'
import { sqliteState } from '../../src/plugins/state/sqlite/sqlite-state.js'
import { runMain } from '../fixtures/cli.js'
import { newJob } from '../../src/testing/state-backend.js'

async function configIn(state = ''): Promise<{ dir: string; config: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-jobs-'))
  const config = join(dir, 'config.yaml')
  await writeFile(config, `${state}platforms:\n  webhook:\n    extra:\n      routes:\n        pr: { secret: s3cret-value }\n`)
  return { dir, config }
}

describe('hookpilot jobs', () => {
  it('before serve ever ran: list says there are no jobs yet (exit 0), show says so too (exit 1)', async () => {
    const { config } = await configIn()
    const list = await runMain(['jobs', 'list', '--config', config])
    expect(list.code).toBe(0)
    expect(list.stderr).toMatch(/No jobs yet: there is no state file at .*\.hookpilot\/state\.db/)
    expect((await runMain(['jobs', 'show', '1', '--config', config])).code).toBe(1)
  })

  it('lists, shows and purges jobs of a state file; unknown ids and bad flags say what to do', async () => {
    const { dir, config } = await configIn()
    const state = sqliteState({ path: join(dir, '.hookpilot', 'state.db'), concurrency: 1, maxQueue: 10 })
    await state.start?.({ log: silentLogger })
    const origin = { link: 'https://github.com/octo-org/hello-world/pull/7', hook: 'repos/octo-org/hello-world/hooks/4242' }
    await state.queue.add({ ...newJob('cli-1'), ...origin }, await state.dedup.reserve('pr\u0000cli-1'))
    await state.close?.()

    const list = await runMain(['jobs', 'list', '--config', config])
    expect(list.stdout).toMatch(/^ID\s+STATE\s+STAGE\s+ROUTE\s+EVENT\s+DELIVERY/)
    expect(list.stdout).toMatch(/\n1\s+queued\s+run\s+pr\s+pull_request\s+cli-1\s+0/)
    expect(JSON.parse((await runMain(['jobs', 'list', '--json', '--state', 'queued', '--config', config])).stdout)).toMatchObject([{ id: '1', deliveryId: 'cli-1' }])
    const show = await runMain(['jobs', 'show', '1', '--config', config])
    expect(show.stdout).toMatch(/state:\s+queued/)
    expect(show.stdout).toMatch(/delivery:\s+cli-1\nlink:\s+https:\/\/github\.com\/octo-org\/hello-world\/pull\/7\nhook:\s+repos\/octo-org\/hello-world\/hooks\/4242\n/)
    expect(show.output).not.toContain('s3cret-value')

    expect(await runMain(['jobs', 'show', '99', '--config', config])).toMatchObject({ code: 1, stderr: expect.stringContaining('No job "99"') })
    expect(await runMain(['jobs', 'retry', '1', '--config', config])).toMatchObject({ code: 1, stderr: expect.stringContaining('job 1 is queued: only a finished job (done, skipped, superseded or failed) can be retried') })
    expect(await runMain(['jobs', 'list', '--state', 'stuck', '--config', config])).toMatchObject({ code: 2, stderr: expect.stringContaining('--state takes one of queued, running, done, skipped, superseded, failed') })
    expect(await runMain(['jobs', 'purge', '--config', config])).toMatchObject({ code: 2, stderr: expect.stringContaining('purge needs --older-than AGE') })
    expect(await runMain(['jobs', 'purge', '--older-than', 'week', '--config', config])).toMatchObject({ code: 2, stderr: expect.stringContaining('such as 30m, 12h or 7d') })
    expect(await runMain(['jobs', 'purge', '--older-than', '1s', '--config', config])).toMatchObject({ code: 0, stdout: 'Purged 0 finished jobs (done or failed) that ended more than 1s ago.\n' })
    expect(show.stdout).toMatch(/\ntarget:\s+log\n/) // the route's deliver (issue 25, item 12)
    expect(await runMain(['jobs', 'frobnicate', '--config', config])).toMatchObject({ code: 2, stderr: expect.stringContaining('use list, show, retry or purge') })
  })

  it('show says which try of how many a job is at, when the next one runs and why the last failed (issue 25, item 7)', async () => {
    const { dir, config } = await configIn('agent:\n  retry: { attempts: 4 }\n')
    const state = sqliteState({ path: join(dir, '.hookpilot', 'state.db'), concurrency: 1, maxQueue: 10 })
    await state.start?.({ log: silentLogger })
    await state.queue.add(newJob('cli-r'), await state.dedup.reserve('pr\u0000cli-r'))
    state.queue.start(async () => ({ kind: 'retry', at: Date.now() + 12 * 60_000, reason: 'exited with code 1: overloaded' }))
    await expect.poll(async () => (await state.jobs.get('1'))?.lastError, { timeout: 5_000 }).toBe('exited with code 1: overloaded')
    await state.queue.stop(1_000)
    await state.close?.()

    const show = await runMain(['jobs', 'show', '1', '--config', config])
    expect(show.stdout).toMatch(/\ntries:\s+1 of 4 \(agent\.retry\)\n/)
    expect(show.stdout).toMatch(/\nnext try:\s+\d{4}-\d\d-\d\dT[\d:.]+Z \(in 1[12] min\), try 2 of 4 \(agent\.retry\)\n/)
    expect(show.stdout).toMatch(/\nlast error:\s+exited with code 1: overloaded\n/)
  })

  it('purge says how many done jobs it kept because they are inside the de-dup window, and why (issue 25, item 12)', async () => {
    const { dir, config } = await configIn()
    const state = sqliteState({ path: join(dir, '.hookpilot', 'state.db'), concurrency: 1, maxQueue: 10, now: () => Date.now() - 60_000 })
    await state.start?.({ log: silentLogger })
    for (const id of ['old-1', 'old-2']) await state.queue.add(newJob(id), await state.dedup.reserve(`pr\u0000${id}`))
    state.queue.start(async () => ({ kind: 'done' }))
    await expect.poll(async () => (await state.jobs.counts()).done, { timeout: 5_000 }).toBe(2)
    await state.queue.stop(1_000)
    await state.close?.()
    const purged = await runMain(['jobs', 'purge', '--older-than', '1s', '--config', config])
    expect(purged.stdout).toBe('Purged 0 finished jobs (done or failed) that ended more than 1s ago.\n'
      + 'Kept 2 done jobs that ended within the de-dup window: each holds its delivery id, so a redelivery of its event is answered "duplicate" instead of running again. They can be purged once the window (1 hour after each ended) has passed.\n')
  })

  it('state.driver memory: says jobs cannot be seen from outside the gateway', async () => {
    const { config } = await configIn('state:\n  driver: memory\n')
    const result = await runMain(['jobs', 'list', '--config', config])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('state.driver is memory: jobs live only inside the running gateway')
  })
})
