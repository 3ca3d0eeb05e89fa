/**
 * A config whose only work is a market watch (issue 38, item 13): `check` said "0 routes (none (subscriptions
 * only)) ... delivering to none" and serve's startup line "routes: (none configured)". Both now name the watch,
 * and check names where its alerts go. The real CLI, against the mock market services.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMockMarketServer, type MockMarketServer } from '../../src/sdk/mock/index.js'
import { runCli, startCli } from '../fixtures/cli.js'

let mock: MockMarketServer
beforeAll(async () => {
  mock = await startMockMarketServer({ port: 0, tickMs: 0 })
})
afterAll(async () => {
  await mock.close()
})

async function watchOnlyConfig(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-watch-only-'))
  const file = join(dir, 'config.yaml')
  await writeFile(file, `state: { driver: memory }
platforms:
  webhook:
    extra: { host: 127.0.0.1 }
  market:
    enabled: true
    extra:
      gamma_url: ${mock.gammaUrl}
      clob_url: ${mock.clobUrl}
      data_url: ${mock.dataUrl}
      ws_url: ${mock.wsUrl}
      watches:
        fed-cut:
          market: will-1-fed-rate-cut-happen-in-2025
          when: [{ price_crosses: [0.5] }]
          deliver: log
`)
  return file
}

describe('a config whose only work is a market watch', () => {
  it('check names the watch and where its alerts go', async () => {
    const file = await watchOnlyConfig()
    const checked = await runCli(['check', '--config', file])
    expect(checked.code, checked.output).toBe(0)
    expect(checked.stdout).toContain('is valid: 0 routes (none), 1 watch (market:fed-cut), runner echo, state memory, delivering to log.')
    expect(checked.stdout).not.toContain('subscriptions only')
  })

  it("serve's startup line names the watch", async () => {
    const file = await watchOnlyConfig()
    const served = startCli(['serve', '--config', file, '--port', '0'])
    try {
      const [line] = await served.waitFor(/\[webhook\] Listening on [^\n]*\n/)
      expect(line).toContain('routes: (none configured) — watches: market:fed-cut — state: memory')
    } finally {
      served.child.kill('SIGTERM')
      await served.exited
    }
  })
})
