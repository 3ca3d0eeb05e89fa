// Ctrl-C of an export (SIGINT to the built CLI, a real child process) says what was kept and how to go on, leaves
// no temporary checkpoint, and the same command resumes it (issue 38, item 16).
import { existsSync, readdirSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMockMarketServer, type MockMarketServer } from '../../src/sdk/mock/server.js'
import { runCli, startCli } from '../fixtures/cli.js'
import { MOCK_NOW } from './helpers/router-client.js'

const SLUG = 'microstrategy-sells-any-bitcoin-by-may-31-2026'
const ARGS = ['market', 'export', 'history', SLUG, '--since', '2025-01-01', '--until', '2026-07-02', '--fidelity', '30']
const FILE = `history-${SLUG}-30m.jsonl`

let mock: MockMarketServer
let env: NodeJS.ProcessEnv
beforeAll(async () => {
  mock = await startMockMarketServer({ now: () => MOCK_NOW, tickMs: 0 })
  env = { HOOKPILOT_GAMMA_URL: mock.gammaUrl, HOOKPILOT_CLOB_URL: mock.clobUrl, HOOKPILOT_DATA_URL: mock.dataUrl }
})
afterAll(() => mock.close())

describe('an export stopped with Ctrl-C', () => {
  it('says what it kept and how to resume, exits 130, leaves no .tmp, and the same command finishes it', { timeout: 60_000 }, async () => {
    const out = await mkdtemp(join(tmpdir(), 'hookpilot-interrupted-'))
    const cli = startCli([...ARGS, '--out', out], { env })
    await cli.waitFor(/export history: 2\/37 steps/)
    cli.child.kill('SIGINT')
    const code = await cli.exited
    expect(code).toBe(130)
    expect(cli.output()).toMatch(new RegExp(`interrupted: [\\d,]+ rows kept in .*${FILE}; run the same command again to resume from its checkpoint`))
    expect(readdirSync(out).sort()).toEqual([FILE, `${FILE}.checkpoint.json`])

    const resumed = await runCli([...ARGS, '--out', out], { env })
    expect(resumed.code, resumed.output).toBe(0)
    expect(resumed.stdout).toContain('(resumed from its checkpoint)')
    expect(existsSync(join(out, `${FILE}.checkpoint.json`))).toBe(false)
  })
})
