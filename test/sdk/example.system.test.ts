// Runs the shipped example as a user would: a separate node process against the mock server on a real port.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMockMarketServer, type MockMarketServer } from '../../src/sdk/mock/server.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../', import.meta.url))
let mock: MockMarketServer

beforeAll(async () => {
  mock = await startMockMarketServer({ port: 0 })
})
afterAll(() => mock.close())

/** `node` with hooks that run TypeScript and map `hookpilot/sdk` to src/ (no build needed). */
function runExample(args: string[], env: Record<string, string> = {}, script = 'examples/sdk/linking-flow.ts') {
  const register = fileURLToPath(new URL('./helpers/ts-register.mjs', import.meta.url))
  return run(process.execPath, ['--import', register, script, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
  })
}

describe('examples/sdk/linking-flow.ts', () => {
  it('walks the linking flow against the mock given base URLs in env vars', async () => {
    const { stdout } = await runExample([], { GAMMA_URL: mock.gammaUrl, CLOB_URL: mock.clobUrl, DATA_URL: mock.dataUrl })
    expect(stdout).toContain('Will 1 Fed rate cut happen in 2025?')
    expect(stdout).toMatch(/Yes: 0\.035/)
    expect(stdout).toMatch(/best bid 0\.03, best ask 0\.04, buy 0\.03/)
    expect(stdout).toMatch(/history: 169 points, last 0\.035/)
    expect(stdout).toMatch(/trades: (sell|buy) /)
    expect(stdout).toContain('open interest: 412331.102')
  })

  it('takes base URLs as arguments and exits 1 with the error code on an unknown slug', async () => {
    const args = ['no-such-market', `--gamma=${mock.gammaUrl}`, `--clob=${mock.clobUrl}`, `--data=${mock.dataUrl}`]
    const err = await runExample(args).catch((e: unknown) => e as { code: number; stderr: string })
    expect(err).toMatchObject({ code: 1, stderr: expect.stringContaining('ERR_MARKET_NOT_FOUND') })
  })
})

describe('examples/sdk/live-book.ts', () => {
  it('follows a market\'s books on the mock\'s market channel', async () => {
    const env = { GAMMA_URL: mock.gammaUrl, CLOB_URL: mock.clobUrl, WS_URL: mock.wsUrl }
    const { stdout } = await runExample(['will-2-fed-rate-cuts-happen-in-2025', '--updates=4'], env, 'examples/sdk/live-book.ts')
    const lines = stdout.trim().split('\n')
    expect(lines[0]).toBe('Will 2 Fed rate cuts happen in 2025?')
    expect(lines[1]).toBe('Yes snapshot: best bid 0.64 x 3175, best ask 0.65 x 3800')
    expect(lines[2]).toMatch(/^No snapshot: best bid 0\.36/)
    expect(lines.slice(3)).toHaveLength(2)
    expect(lines.slice(3).every((l) => / change: best bid /.test(l))).toBe(true)
  })
})
