/**
 * A real `hookpilot serve` whose state file fails under it (issue 25, items 19 and 20): the disk fills up while
 * agents run, and the file is deleted or truncated while it serves. docs/durability.md and docs/operations.md
 * name these tests.
 *
 * A full disk without root or a small mount: SQLite's `max_page_count` (the serve child's
 * HOOKPILOT_TEST_SQLITE_ROOM_PAGES, a test hook) fails a write that would grow the file past it with
 * SQLITE_FULL, exactly as a full disk does. Room is made as an operator would: by deleting something from the
 * file (a filler table the test put there), which frees pages the gateway can take.
 */
import Database from 'better-sqlite3'
import { existsSync, mkdirSync, renameSync, rmSync, truncateSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runMain, type RunningCli } from '../fixtures/cli.js'
import { durableSetup, type Durable, type Serving } from '../fixtures/durable.js'

const running: RunningCli[] = []
afterEach(() => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL')
})

async function serve(world: Durable, env?: NodeJS.ProcessEnv): Promise<Serving> {
  const serving = await world.serve(env)
  running.push(serving.cli)
  return serving
}

async function ready(port: number): Promise<{ status: number; reason: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/ready`)
  const body = (await res.json()) as { reason?: string }
  return { status: res.status, reason: body.reason ?? '' }
}

const statePath = (world: Durable) => join(world.dir, '.hookpilot', 'state.db')

async function jobStates(world: Durable): Promise<string[]> {
  const listed = await runMain(['jobs', 'list', '--json', '--config', world.config], { env: world.env, cwd: world.dir })
  return (JSON.parse(listed.stdout) as Array<{ state: string }>).map((j) => j.state)
}

describe('hookpilot serve on a disk that fills up (item 19)', () => {
  it('jobs running when the disk fills wait instead of failing, /ready says 503 and why, one line each way, and they run by themselves once there is room', async () => {
    const world = await durableSetup({ agentMs: 200, concurrency: 2 })
    // The file exists before serve opens it, with 400 KB an operator can delete later.
    mkdirSync(join(world.dir, '.hookpilot'))
    const filler = new Database(statePath(world))
    filler.exec('CREATE TABLE filler (b BLOB)')
    filler.prepare('INSERT INTO filler VALUES (zeroblob(400000))').run()
    filler.close()
    // Room for the jobs, not for the 60 KB answers their agents give.
    const { cli, port } = await serve(world, { HOOKPILOT_TEST_SQLITE_ROOM_PAGES: '6', AGENT_ANSWER_BYTES: '60000' })

    expect((await world.send(port, 1, 'full-1')).status).toBe(202)
    expect((await world.send(port, 2, 'full-2')).status).toBe(202)
    await cli.waitFor(/state database cannot be written: its disk is full/)
    await expect.poll(() => ready(port), { timeout: 10_000 }).toMatchObject({ status: 503, reason: expect.stringMatching(/disk is full/) })
    // The agents ran and their answers could not be stored: back in the queue, not failed.
    await expect.poll(() => world.agentLog().filter((e) => e.what === 'end').length).toBeGreaterThanOrEqual(2)
    await expect.poll(() => jobStates(world), { timeout: 10_000 }).toEqual(['queued', 'queued'])
    expect(world.posted()).toEqual([])
    // Meanwhile the loops wait: a few lines, not hundreds a second; and no agent runs for an answer that
    // cannot be stored.
    const during = cli.output().split('\n').length
    const starts = () => world.agentLog().filter((e) => e.what === 'start').length
    await cli.waitFor(/state store failed/)
    expect(starts()).toBe(2)

    const room = new Database(statePath(world), { timeout: 5_000 })
    room.exec('DROP TABLE filler')
    room.close()
    await cli.waitFor(/state database can be written again/, 15_000)
    // The jobs run by themselves, each posted once.
    await expect.poll(() => world.posted().sort(), { timeout: 40_000 }).toEqual([1, 2])
    await expect.poll(() => jobStates(world), { timeout: 10_000 }).toEqual(['done', 'done'])
    expect(starts()).toBe(4)
    expect((await ready(port)).status).toBe(200)
    expect((await world.send(port, 3, 'full-3')).status).toBe(202)

    const out = cli.output()
    expect(out.match(/state database cannot be written/g)).toHaveLength(1)
    expect(out.match(/state database can be written again/g)).toHaveLength(1)
    expect(out).not.toMatch(/job failed|"state":"failed"/)
    expect(during).toBeLessThan(60)
  }, 90_000)
})

describe('hookpilot serve whose state file is deleted or truncated under it (item 20)', () => {
  it('deleted: webhooks and /ready answer 503 with the reason, the log says what to do, and SIGTERM copies the jobs to a file that a restart runs', async () => {
    const world = await durableSetup({ agentMs: 800, concurrency: 1 })
    const first = await serve(world)
    for (const pr of [1, 2, 3]) expect((await world.send(first.port, pr, `gone-${pr}`)).status).toBe(202)
    rmSync(statePath(world))

    await first.cli.waitFor(/state\.path .* was deleted while hookpilot was serving: webhooks are answered 503/)
    expect((await world.send(first.port, 4, 'gone-4')).status).toBe(503)
    expect(await ready(first.port)).toMatchObject({ status: 503, reason: expect.stringMatching(/was deleted while hookpilot was serving; restart hookpilot/) })
    const [, rescue] = await first.cli.waitFor(/copies them to (\S+) now, .* Stop hookpilot, move that copy to/)
    first.cli.child.kill('SIGTERM')
    await first.cli.exited
    expect(first.cli.output()).toMatch(/copied to .*: move it to .* before the next start/)

    // What the log says to do keeps every job that was answered 202. The deleted file's -wal and -shm are gone:
    // a start would have replayed them into a new empty file (how 19 of 20 jobs were lost).
    renameSync(rescue!, statePath(world))
    for (const stale of ['state.db-wal', 'state.db-shm']) expect(existsSync(join(world.dir, '.hookpilot', stale))).toBe(false)
    const second = await serve(world)
    await expect.poll(() => world.posted().sort(), { timeout: 30_000 }).toEqual([1, 2, 3])
    expect((await ready(second.port)).status).toBe(200)
  }, 60_000)

  it('deleted or truncated: events sent the moment after are answered 503, none 202 into the lost file (issue 38, item 12)', async () => {
    for (const damage of [rmSync, (path: string) => truncateSync(path, 0)]) {
      const world = await durableSetup({ agentMs: 10_000, concurrency: 1 })
      const { cli, port } = await serve(world)
      expect((await world.send(port, 1, 'soon-1')).status).toBe(202)
      damage(statePath(world))
      // At once, not after the once-a-second look: each commit that stores a job looks at the file first.
      const answers = await Promise.all([2, 3, 4, 5, 6].map((pr) => world.send(port, pr, `soon-${pr}`)))
      expect(answers.map((a) => a.status)).toEqual([503, 503, 503, 503, 503])
      cli.child.kill('SIGKILL')
    }
  }, 40_000)

  it('deleted while jobs wait, then kill -9: the copy made at once through the open file keeps every job (issue 38, item 12)', async () => {
    const world = await durableSetup({ agentMs: 20_000, concurrency: 1 })
    const first = await serve(world)
    const prs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    for (const pr of prs) expect((await world.send(first.port, pr, `kept-${pr}`)).status).toBe(202)
    rmSync(statePath(world))
    // The timer's look finds the deletion within a second; the copy follows at once.
    const [, rescue] = await first.cli.waitFor(/copied to (\S+): they survive even a kill -9 now/, 10_000)
    first.cli.child.kill('SIGKILL')
    await first.cli.exited
    const copy = new Database(rescue!, { readonly: true })
    const states = copy.prepare("SELECT state FROM jobs WHERE event = 'pull_request'").pluck().all()
    copy.close()
    expect(states).toHaveLength(10)
    // What the log says to do: the kill left the deleted file's -wal and -shm, which go; the copy takes its place.
    for (const stale of ['state.db-wal', 'state.db-shm']) rmSync(join(world.dir, '.hookpilot', stale), { force: true })
    renameSync(rescue!, statePath(world))
    await serve(world, { AGENT_MS: '20' })
    await expect.poll(() => world.posted().sort((a, b) => a - b), { timeout: 30_000 }).toEqual(prs)
  }, 60_000)

  it('truncated: webhooks and /ready answer 503 with the reason, and the log says the jobs are damaged and how to start again', async () => {
    const world = await durableSetup({ agentMs: 5_000, concurrency: 1 })
    const { cli, port } = await serve(world)
    for (const pr of [1, 2]) expect((await world.send(port, pr, `cut-${pr}`)).status).toBe(202)
    truncateSync(statePath(world), 0)

    await cli.waitFor(/was truncated while hookpilot was serving .*: webhooks are answered 503 .* restore .* from a backup/)
    expect((await world.send(port, 3, 'cut-3')).status).toBe(503)
    expect(await ready(port)).toMatchObject({ status: 503, reason: expect.stringMatching(/was truncated while hookpilot was serving/) })
  }, 30_000)
})
