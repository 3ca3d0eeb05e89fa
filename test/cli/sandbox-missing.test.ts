/**
 * Issue 39: where bubblewrap is missing (here: a PATH without bwrap), `agent.sandbox: auto` runs agents without a
 * sandbox and says so loudly at start, in `serve` and in `check`, with what is missing and how to get it;
 * `agent.sandbox: bubblewrap` refuses to start.
 */
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, startCli, type RunningCli } from '../fixtures/cli.js'

let serving: RunningCli | undefined
afterEach(async () => {
  serving?.child.kill('SIGTERM')
  await serving?.exited
  serving = undefined
})

/** A config.yaml with `agent.sandbox: mode` and a PATH that holds node and no bwrap; answers its folder and environment. */
async function withoutBwrap(mode: 'auto' | 'bubblewrap', agentKeys: readonly string[] = []): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-no-bwrap-'))
  await mkdir(join(dir, 'bin'))
  await symlink(process.execPath, join(dir, 'bin', 'node'))
  await writeFile(join(dir, 'config.yaml'), [
    'agent:',
    `  sandbox: ${mode}`,
    ...agentKeys.map((line) => `  ${line}`),
    'state:',
    '  driver: memory',
    'platforms:',
    '  webhook:',
    '    extra:',
    '      host: 127.0.0.1',
    '      routes: { pr: { secret: "route-secret-no-bwrap-39" } }',
  ].join('\n'))
  return { dir, env: { PATH: join(dir, 'bin') } }
}

const WARNING = /agent\.sandbox: agents run WITHOUT a sandbox, as the gateway's own user: bwrap is not on PATH: install bubblewrap \(Debian, Ubuntu: apt-get install bubblewrap/

describe('agent.sandbox where bubblewrap is missing', () => {
  it('auto: check passes and warns, with what is missing and how to get it', async () => {
    const { dir, env } = await withoutBwrap('auto')
    const result = await runCli(['check', '--config', join(dir, 'config.yaml')], { cwd: dir, env })
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(new RegExp(`warning: ${WARNING.source}`))
  })

  it('auto: serve starts and warns', async () => {
    const { dir, env } = await withoutBwrap('auto')
    serving = startCli(['serve', '--config', join(dir, 'config.yaml'), '--port', '0'], { cwd: dir, env })
    await serving.waitFor(new RegExp(`WARN +${WARNING.source}`))
    await serving.waitFor(/listening/i)
  })

  it('bubblewrap: check and serve refuse, naming the key', async () => {
    const { dir, env } = await withoutBwrap('bubblewrap')
    const refused = /agent\.sandbox: bubblewrap was asked for and bwrap is not on PATH: install bubblewrap/
    const check = await runCli(['check', '--config', join(dir, 'config.yaml')], { cwd: dir, env })
    expect(check.code).toBe(1)
    expect(check.output).toMatch(refused)
    const serve = await runCli(['serve', '--config', join(dir, 'config.yaml'), '--port', '0'], { cwd: dir, env })
    expect(serve.code).not.toBe(0)
    expect(serve.output).toMatch(refused)
  })

  it('auto with agent.network: false: check refuses, since only the sandbox could cut the network', async () => {
    const { dir, env } = await withoutBwrap('auto', ['network: false'])
    const check = await runCli(['check', '--config', join(dir, 'config.yaml')], { cwd: dir, env })
    expect(check.code).toBe(1)
    expect(check.output).toMatch(/agent\.network: false needs the sandbox to cut the network and bwrap is not on PATH/)
  })
})
