/**
 * A plugin as an outside author ships it (examples/plugins/audit: its own package.json, importing only
 * `hookpilot` and `hookpilot/testing`): it passes the delivery-target contract in its own vitest run,
 * `hookpilot serve` loads it from `plugins:`, its option typo is reported at the plugin's path, its secret never
 * reaches a log or a program the gateway runs, and its close() runs on SIGTERM.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, runCli, startCli } from '../fixtures/cli.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'
import { fixtureAgent } from '../fixtures/process.js'

const TOKEN = 'audit-token-that-must-stay-secret'
const SECRET = 'route-secret-0123456789'

/** A folder with the example plugin package, and hookpilot and vitest installed beside it as npm would link them. */
async function pluginWorld(): Promise<{ dir: string; pkg: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-plugin-'))
  const pkg = join(dir, 'plugin-audit')
  cpSync(join(ROOT, 'examples', 'plugins', 'audit'), pkg, { recursive: true })
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(ROOT, join(dir, 'node_modules', 'hookpilot'), 'dir')
  symlinkSync(join(ROOT, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'), 'dir')
  return { dir, pkg }
}

function config(use: string, withOptions: string): string {
  return `agent:
  runner: command
  command: ${JSON.stringify(fixtureAgent('env'))}
plugins:
  - use: ${use}
    with: ${withOptions}
platforms:
  webhook:
    extra:
      host: 127.0.0.1
      port: 0
      shutdown_grace_seconds: 2
      routes:
        pr:
          secret: ${SECRET}
          deliver: audit
state:
  driver: memory
`
}

describe('a plugin package from outside', () => {
  it('passes the delivery-target contract suite of hookpilot/testing in its own vitest run', async () => {
    const { pkg } = await pluginWorld()
    const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')
    const run = spawnSync(process.execPath, [vitest, 'run', '--reporter=verbose'], { cwd: pkg, encoding: 'utf8', env: { ...process.env, CI: '', NO_COLOR: '1' } })
    expect(run.status, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toMatch(/audit \(DeliveryTarget contract\)/)
    expect(run.stdout).toMatch(/Tests\s+\d+ passed/)
    expect(run.stdout).not.toMatch(/\d+ skipped/) // a case that does not apply (no breakDestination) is not registered
  }, 60_000)

  it('is loaded by hookpilot serve from plugins:, keeps its secret out of logs and children, and closes on SIGTERM', async () => {
    const { dir } = await pluginWorld()
    await writeFile(join(dir, 'config.yaml'), config('./plugin-audit/index.mjs', '{ file: ./audit.jsonl, token: "${AUDIT_TOKEN}" }'))
    const serving = startCli(['serve', '--config', join(dir, 'config.yaml')], { env: { AUDIT_TOKEN: TOKEN }, cwd: dir })
    const [, port] = await serving.waitFor(/Listening on 127\.0\.0\.1:(\d+)/)
    await serving.waitFor(/audit plugin started/)
    const body = githubPayload('pull_request', 'opened')
    const res = await fetch(`http://127.0.0.1:${port}/webhooks/pr`, { method: 'POST', headers: githubHeaders('pull_request', body, SECRET, 'ext-1'), body })
    expect(res.status).toBe(202)
    await serving.waitFor(/answer audited .*delivery=ext-1/)
    const lines = readFileSync(join(dir, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { text?: string; sig: string })
    const childEnv = JSON.parse(lines[0]?.text ?? '{}') as Record<string, string>
    expect(childEnv['PATH']).toBeDefined() // the agent did get an environment...
    expect(Object.values(childEnv)).not.toContain(TOKEN) // ...without the plugin's secret
    expect(lines[0]?.sig).toMatch(/^[0-9a-f]{64}$/)
    serving.child.kill('SIGTERM')
    expect(await serving.exited).toBe(0)
    expect(serving.output()).not.toContain(TOKEN)
    expect(readFileSync(join(dir, 'audit.jsonl'), 'utf8')).toContain('"closed":true')
  }, 30_000)

  it('a typo in its options is reported at the plugin\'s path with a suggestion; a module that is not there names plugins[N].use', async () => {
    const { dir } = await pluginWorld()
    const file = join(dir, 'config.yaml')
    await writeFile(file, config('./plugin-audit/index.mjs', `{ fil: ./audit.jsonl, token: short }`))
    const typo = await runCli(['serve', '--config', file], { cwd: dir })
    expect(typo.code).toBe(1)
    expect(typo.stderr).toContain('plugins[0].with.fil: unknown key: did you mean "file"?')
    expect(typo.stderr).toContain('plugins[0].with.token: at least 16 characters')
    expect(typo.stderr).not.toContain('short')
    await writeFile(file, config('./nope/index.mjs', '{}'))
    const missing = await runCli(['serve', '--config', file], { cwd: dir })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/plugins\[0\]\.use: cannot find "\.\/nope\/index\.mjs"/)
    expect(existsSync(join(dir, 'audit.jsonl'))).toBe(false)
  }, 30_000)
})
