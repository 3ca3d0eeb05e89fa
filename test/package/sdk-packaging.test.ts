// What a user installs: the built package (dist/, built by `npm test` before vitest runs) as npm would pack it.
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../', import.meta.url))
const noMsw = fileURLToPath(new URL('../sdk/helpers/no-msw.mjs', import.meta.url))

/** Runs an ES module snippet in a node process where msw cannot be resolved. */
function withoutMsw(code: string) {
  return run(process.execPath, ['--import', noMsw, '--input-type=module', '-e', code], { cwd: root })
}

describe('the package', () => {
  it('imports hookpilot/sdk/mock (and runs its server) without msw installed', async () => {
    const { stdout } = await withoutMsw(`
      const { startMockMarketServer, createMockMarketRouter } = await import('hookpilot/sdk/mock')
      const mock = await startMockMarketServer({ tickMs: 0 })
      const res = await fetch(mock.gammaUrl + '/tags')
      await mock.close()
      console.log(typeof createMockMarketRouter, res.status)
    `)
    expect(stdout.trim()).toBe('function 200')
  })

  it('keeps the msw handlers at hookpilot/sdk/mock/msw, which is what needs msw', async () => {
    const err = await withoutMsw(`await import('hookpilot/sdk/mock/msw')`).catch((e: unknown) => e as { stderr: string })
    expect(err).toMatchObject({ stderr: expect.stringContaining('Cannot find package msw') })
  })

  it('exports history from the built package at hookpilot/sdk/export, against the mock, without msw', async () => {
    const { stdout } = await withoutMsw(`
      const { mkdtempSync, readFileSync } = await import('node:fs')
      const { join } = await import('node:path')
      const { createMarketClient } = await import('hookpilot/sdk')
      const { historyExport, runExport } = await import('hookpilot/sdk/export')
      const { startMockMarketServer } = await import('hookpilot/sdk/mock')
      const mock = await startMockMarketServer({ tickMs: 0 })
      const file = join(mkdtempSync(join((await import('node:os')).tmpdir(), 'pkg-export-')), 'h.csv')
      const walk = await historyExport(createMarketClient(mock), 'microstrategy-sells-any-bitcoin-by-may-31-2026', { since: 1780272000, until: 1780358400, fidelity: 720 })
      const summary = await runExport(walk, { file, format: 'csv' })
      await mock.close()
      console.log(summary.rows, readFileSync(file, 'utf8').split('\\r\\n')[0])
    `)
    expect(stdout.trim()).toBe('6 t,time,outcome,outcomeIndex,p,tokenId,market')
  })

  it('ships every source its source maps point at', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root })
    const packed = new Set((JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path))
    const maps = [...packed].filter((p) => p.startsWith('dist/sdk/') && p.endsWith('.js.map'))
    expect(maps.length).toBeGreaterThan(20)
    const missing = maps.flatMap((map) => {
      const { sources } = JSON.parse(readFileSync(join(root, map), 'utf8')) as { sources: string[] }
      return sources.map((s) => normalize(join(dirname(map), s))).filter((s) => !packed.has(s))
    })
    expect(missing).toEqual([])
    expect(existsSync(join(root, 'src/sdk/index.ts'))).toBe(true)
  })
})
