/**
 * `serve` ends when the process that started it is gone (issue 25, item 6): npm killed with SIGKILL under
 * `npx hookpilot serve` left the gateway running as an orphan. A real parent process starts serve (its output
 * to a file, as a terminal would keep it), is killed with SIGKILL, and serve shuts down as on SIGTERM.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, assertBuilt } from '../fixtures/cli.js'

/** A parent that starts `serve` with its output in `log`, prints serve's pid, and waits to be killed. */
const PARENT = `
const { spawn } = require('node:child_process')
const { openSync } = require('node:fs')
const [cli, config, log, ...flags] = process.argv.slice(1)
const out = openSync(log, 'a')
const child = spawn(process.execPath, [cli, 'serve', '--config', config, '--port', '0', ...flags], { stdio: ['ignore', out, out] })
process.stdout.write(child.pid + '\\n')
setInterval(() => {}, 1000)
`

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('serve ends with the process that started it', () => {
  for (const [how, flags, env] of [
    ['started by npm (npx hookpilot serve)', [], { npm_command: 'exec' }],
    ['with --exit-with-parent', ['--exit-with-parent'], { npm_command: '' }],
  ] as const) {
    it(`${how}: the parent killed with SIGKILL, serve drains, says why and exits`, async () => {
      assertBuilt()
      const dir = await mkdtemp(join(tmpdir(), 'hookpilot-parent-'))
      const config = join(dir, 'config.yaml')
      const log = join(dir, 'serve.log')
      await writeFile(config, 'state: { driver: memory }\nplatforms: { webhook: { extra: { host: 127.0.0.1, secret: parent-test-secret, routes: { pr: { deliver: log } } } } }\n')
      const parent = spawn(process.execPath, ['-e', PARENT, CLI, config, log, ...flags], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
      const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))))
      try {
        await expect.poll(async () => readFile(log, 'utf8').catch(() => ''), { timeout: 15_000 }).toContain('Listening on')
        parent.kill('SIGKILL')
        await expect.poll(() => alive(pid), { timeout: 10_000, interval: 100 }).toBe(false)
        const output = await readFile(log, 'utf8')
        expect(output).toMatch(/the process that started it \(pid \d+\) is gone: shutting down as on SIGTERM/)
        expect(output).toContain('shutdown: every job finished')
      } finally {
        parent.kill('SIGKILL')
        if (alive(pid)) process.kill(pid, 'SIGKILL')
      }
    })
  }
})
