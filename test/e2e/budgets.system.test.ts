/**
 * Budgets across processes (issue 35, items 2 and 6): two `hookpilot serve` on one SQLite file, and two on one
 * Redis, share a pull request's budget through the store's notes, so together they never start more runs than it has room for; the
 * refusal is posted once on the pull request; a `kill -9` during a reserved run leaves a reservation that the
 * job's next run settles, not one held forever. The agent is a fake `claude -p --output-format json` that
 * reports each run's cost.
 */
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, type RunningCli } from '../fixtures/cli.js'
import { crash, durableSetup, redisStateYaml, type Durable } from '../fixtures/durable.js'
import { useRedis } from '../fixtures/redis.js'

const redis = useRedis()

const running: RunningCli[] = []
afterEach(() => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL')
})

interface Listed { id: string; state: string; note?: string; usage?: { costUsd?: number } }
const jobs = async (world: Durable): Promise<Listed[]> => JSON.parse((await runCli(['jobs', 'list', '--json', '--config', world.config], { env: world.env })).stdout) as Listed[]
type BudgetNote = { spentUsd: number; reserved: Record<string, { usd: number }> }

/** The pull request budget's note in Redis: the one note hash under `prefix` that holds a budget's spend. */
async function redisBudgetNote(prefix: string): Promise<BudgetNote | undefined> {
  for (const key of await redis.client.keys(`${prefix}:note:*`)) {
    const value = await redis.client.hget(key, 'value')
    if (value?.includes('"spentUsd"') === true) return JSON.parse(value) as BudgetNote
  }
  return undefined
}

/** The pull request budget's note, as stored in the SQLite file. */
function budgetNote(world: Durable): BudgetNote | undefined {
  const db = new Database(join(world.dir, '.hookpilot', 'state.db'), { readonly: true, fileMustExist: true })
  try {
    const row = db.prepare<[], { value: string }>(`SELECT value FROM notes WHERE key LIKE 'budget/pull_request/%'`).get()
    return row && (JSON.parse(row.value) as { spentUsd: number; reserved: Record<string, { usd: number }> })
  } finally {
    db.close()
  }
}
const costs = (usd: number, reserve: number) => `costs:
  budgets:
    pull_request: { usd: ${usd} }
    reserve_usd: ${reserve}
`

describe('budgets on a store shared by two instances', () => {
  it.each(['sqlite', 'redis'] as const)('two instances on one %s store together start only the runs the pull request\'s budget has room for; the refusal is posted once', async (store) => {
    const prefix = `budgets-${Date.now()}`
    // Each run costs $0.02 and reserves $0.02: a $0.05 budget has room for two, never three, whoever runs them.
    const world = await durableSetup({ agent: 'fake-claude', agentMs: 1_500, concurrency: 4, extraYaml: costs(0.05, 0.02), ...(store === 'redis' ? { state: redisStateYaml(redis.url, prefix) } : {}) })
    const env = { CLAUDE_COST_USD: '0.02' }
    const a = await world.serve(env)
    const b = await world.serve(env)
    running.push(a.cli, b.cli)
    for (let i = 1; i <= 6; i++) expect((await world.send(i % 2 === 0 ? a.port : b.port, 7, `delivery-${i}`)).status).toBe(202)
    await expect.poll(async () => (await jobs(world)).filter((j) => j.state === 'queued' || j.state === 'running').length, { timeout: 90_000, interval: 250 }).toBe(0)
    const all = await jobs(world)
    expect(all.filter((j) => j.state === 'done')).toHaveLength(2)
    const skipped = all.filter((j) => j.state === 'skipped')
    expect(skipped).toHaveLength(4)
    for (const job of skipped) expect(job.note).toMatch(/^budget pull_request of pull request .+#\d+ has no room: .*\(costs\.budgets\.pull_request\)$/)
    expect(world.agentLog().filter((e) => e.what === 'start')).toHaveLength(2)
    const note = store === 'redis' ? await redisBudgetNote(prefix) : budgetNote(world)
    expect(note?.spentUsd).toBeCloseTo(0.04, 10)
    expect(note?.reserved).toEqual({})
    // Two reviews and one notice that reviews stopped, across both instances.
    expect(world.posted()).toEqual([7, 7, 7])
    const done = all.find((j) => j.state === 'done')
    const shown = await runCli(['jobs', 'show', done?.id ?? '', '--config', world.config], { env: world.env })
    expect(shown.stdout).toMatch(/\nusage:\s+1,812 in \(1,500 cached\), 250 out, \$0\.0200 \(claude-sonnet-4-5\)\n/)
  }, 150_000)

  it('a kill -9 during a reserved run: the reservation is settled by the job\'s next run, not leaked', async () => {
    const world = await durableSetup({ agent: 'fake-claude', agentMs: 10_000, concurrency: 1, extraYaml: costs(1, 0.3) })
    const env = { CLAUDE_COST_USD: '0.02' }
    const first = await world.serve(env)
    running.push(first.cli)
    expect((await world.send(first.port, 7, 'delivery-1')).status).toBe(202)
    await expect.poll(() => world.agentLog().filter((e) => e.what === 'start').length, { timeout: 10_000, interval: 20 }).toBe(1)
    const [job] = await jobs(world)
    expect(budgetNote(world)?.reserved).toEqual({ [job?.id ?? '']: expect.objectContaining({ usd: 0.3 }) as unknown })
    await crash(first)

    const second = await world.serve(env)
    running.push(second.cli)
    await expect.poll(async () => (await jobs(world))[0]?.state, { timeout: 90_000, interval: 200 }).toBe('done')
    const note = budgetNote(world)
    // The killed run may have spent up to its reservation: charged at it; the run that finished at its cost.
    expect(note?.reserved).toEqual({})
    expect(note?.spentUsd).toBeCloseTo(0.32, 10)
    second.cli.child.kill('SIGTERM')
    expect(await second.cli.exited).toBe(0)
  }, 150_000)
})
