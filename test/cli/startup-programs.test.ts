/**
 * Missing programs are found at startup, not by the first job after a green 202 (issue 25, item 4): a mistyped
 * agent command or a gh that is not on PATH refuses `check` and `serve`; a gh that is not logged in is a loud
 * warning from both. Each runs the real CLI with a PATH that holds only what the case needs, and the fake gh.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, runMain, startCli } from '../fixtures/cli.js'
import { installFakeGh, type FakeGh } from '../fixtures/fake-gh.js'

const ROUTE = 'pr: { secret: s3cret-value, prompt: "PR {number}", deliver: github_comment, deliver_extra: { repo: "{repository.full_name}", pr_number: "{number}" } }'

async function configWith(agentCommand: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-programs-'))
  const file = join(dir, 'config.yaml')
  await writeFile(file, `agent: { runner: command, command: [${JSON.stringify(agentCommand)}, -p] }
state: { driver: memory }
platforms: { webhook: { extra: { host: 127.0.0.1, routes: { ${ROUTE} } } } }
`)
  return file
}

describe('programs the gateway runs are checked at startup', () => {
  let gh: FakeGh
  let empty: string
  beforeAll(async () => {
    gh = installFakeGh()
    empty = await mkdtemp(join(tmpdir(), 'hookpilot-empty-path-'))
  })
  afterAll(() => gh.remove())

  it('a mistyped agent command is refused by check and serve, naming agent.command and the PATH searched', async () => {
    const file = await configWith('claud')
    const env = gh.env('ok', { PATH: gh.dir })
    const checked = await runMain(['check', '--config', file], { env })
    expect(checked.code).toBe(1)
    expect(checked.stderr).toContain(`Invalid configuration in ${file}:\n  - agent.command: the agent command "claud" is not on PATH (PATH: ${gh.dir}): install it, fix its name, or give its full path`)
    const served = await runCli(['serve', '--config', file, '--port', '0'], { env })
    expect(served.code).toBe(1)
    expect(served.stderr).toContain('agent.command: the agent command "claud" is not on PATH')
    expect(served.output).not.toContain('Listening on')
  })

  it('a gh that is not on PATH is refused when a route delivers through it, with where to get it', async () => {
    const file = await configWith(process.execPath) // a program that is there, by its full path
    const checked = await runMain(['check', '--config', file], { env: { PATH: empty } })
    expect(checked.code).toBe(1)
    expect(checked.stderr).toContain('platforms.github.gh_path: gh (GitHub CLI, which posts the comments) "gh" is not on PATH')
    expect(checked.stderr).toContain('install it from https://cli.github.com or set platforms.github.gh_path')
    expect(checked.stderr).not.toContain('agent.command')
  })

  it('a gh that is not logged in is a loud warning: check passes and says so, serve starts and says so first', async () => {
    const file = await configWith(process.execPath)
    const env = gh.env('unauthenticated', { PATH: gh.dir })
    const checked = await runMain(['check', '--config', file], { env })
    expect(checked.code, checked.output).toBe(0)
    expect(checked.stderr).toContain('warning: platforms.github: "gh auth status" failed (exit 1): comments will fail until gh is logged in. Run "gh auth login"')
    const serving = startCli(['serve', '--config', file, '--port', '0'], { env })
    try {
      await serving.waitFor(/Listening on/)
      const output = serving.output()
      expect(output).toMatch(/WARN +platforms\.github: "gh auth status" failed \(exit 1\)/)
      expect(output).not.toContain('WARNING:')
      expect(output.indexOf('platforms.github: "gh auth status"')).toBeLessThan(output.indexOf('Listening on'))
    } finally {
      serving.child.kill('SIGTERM')
      await serving.exited
    }
    expect(gh.calls()).toEqual([]) // the check posts nothing
    // Logged in: no word about gh.
    const fine = await runMain(['check', '--config', file], { env: gh.env('ok', { PATH: gh.dir }) })
    expect(fine.code, fine.output).toBe(0)
    expect(fine.stderr).toBe('')
  })
})
