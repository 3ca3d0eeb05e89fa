/**
 * docs/market-alerts.md's "From zero to an alert, with the mock" as a user runs it (issue 38, item 13): its own
 * config (read from the guide, only the mock's port changed) against the mock moving like a market, delivering
 * to the log. Against the scripted mock the guide's watch never alerted; here each of its conditions but the
 * resolution is alerted and delivered, within the two minutes of market the guide promises (sped up: a move
 * every 20 ms). A real gateway with its state in memory, the real mock server and market channel.
 */
import { readFileSync } from 'node:fs'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createGateway, loadConfig, type Gateway } from '../../src/index.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { startMockMarketServer, type MockMarketServer } from '../../src/sdk/mock/index.js'
import { recordingLogger } from '../../src/testing/context.js'
import { ROOT } from '../fixtures/cli.js'
import { asPlugin } from '../fixtures/gateway.js'

const SEED = 20_251_127

/** The guide's config: the first YAML block of its "From zero" section. */
function guideConfig(): string {
  const guide = readFileSync(join(ROOT, 'docs', 'market-alerts.md'), 'utf8')
  const section = guide.slice(guide.indexOf('## From zero to an alert, with the mock'), guide.indexOf('## A watch\n'))
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1]
  if (yaml === undefined) throw new Error('docs/market-alerts.md: no yaml block in "From zero"')
  return yaml
}

let mock: MockMarketServer | undefined
let gateway: Gateway | undefined
afterEach(async () => {
  await gateway?.close()
  await mock?.close()
  gateway = undefined
  mock = undefined
})

describe("the market alerts guide's walk-through", () => {
  it(`alerts a move, a crossing and a block trade to the log against the mock (seed ${SEED})`, async () => {
    mock = await startMockMarketServer({ port: 0, motion: 'market', seed: SEED, tickMs: 20 })
    const yaml = guideConfig()
    expect(yaml).toContain('deliver: log')
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-market-guide-'))
    const file = join(dir, 'config.yaml')
    const port = new URL(mock.url).port
    await writeFile(file, yaml.replaceAll('127.0.0.1:8700', `127.0.0.1:${port}`).replace('port: 8644', 'port: 0'))
    const log = recordingLogger()
    const state = memoryState({ concurrency: 4, maxQueue: 1_000 })
    gateway = await createGateway(await loadConfig(file), [asPlugin({ name: 'test', logger: log, state })], { baseDir: dir })
    await gateway.listen({ port: 0 })

    const kinds = async () => {
      const done = await state.jobs.list({ state: 'done', route: 'market:fed-cut' })
      return [...new Set(done.map((job) => job.deliveryId.split('/')[0]))].sort()
    }
    // 240 moves (two minutes at the mock's default pace) take about 5 s here.
    await expect.poll(kinds, { timeout: 30_000, interval: 200 }).toEqual(['midpoint_moves', 'price_crosses', 'trade_size_over'])
    expect(log.lines.some((line) => line.message === 'agent answer' && /Will 1 Fed rate cut happen in 2025\?: /.test(String(line.fields['answer'] ?? '')))).toBe(true)
  })
})
