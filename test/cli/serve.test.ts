/**
 * `hookpilot serve` as a user runs it: a child process on the example config, a signed request, the answer in
 * the log, a clean shutdown; and the errors a user can make.
 */
import { copyFile, mkdtemp, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { githubExample, githubHeaders } from '../fixtures/github.js'
import { runCli, runMain, startCli, type RunningCli } from '../fixtures/cli.js'

const EXAMPLE_SECRET = 'hookpilot-example-secret'
let running: RunningCli | undefined
afterEach(() => {
  running?.child.kill('SIGKILL')
  running = undefined
})

describe('hookpilot serve', () => {
  it('runs the example config: startup line, signed request → 202, the echo agent\'s answer in the log, clean exit on SIGTERM', async () => {
    // A copy in a folder of its own: the state database lives beside the config file.
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-serve-'))
    await copyFile('examples/config.yaml', join(dir, 'config.yaml'))
    running = startCli(['serve', '--config', join(dir, 'config.yaml'), '--port', '0'], { env: { GITHUB_WEBHOOK_SECRET: '' } })
    // The startup line says where the jobs are kept and what answers them (issue 25, item 12).
    const [, port, where] = await running.waitFor(/\[webhook\] Listening on 127\.0\.0\.1:(\d+) — routes: github-pr-review, gitlab-mr-review — state: sqlite \((.+)\) — runner: echo/)
    // (The example's fallback secret is a word of the path, so the log redacts it there: only the end is compared.)
    expect(where).toMatch(/-serve-\w+\/\.(?:hookpilot|\[redacted\])\/state\.db$/)
    const payload = githubExample('pull_request', 'opened') as { number: number; pull_request: { title: string } }
    const body = Buffer.from(JSON.stringify(payload))
    const res = await fetch(`http://127.0.0.1:${port}/webhooks/github-pr-review`, {
      method: 'POST', headers: githubHeaders('pull_request', body, EXAMPLE_SECRET, 'serve-1'), body,
    })
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual({ status: 'accepted', route: 'github-pr-review', event: 'pull_request', delivery_id: 'serve-1' })
    await running.waitFor(new RegExp(`agent answer .*delivery=serve-1.*answer=<\\d+ lines below>\\n    \\| Review pull request #${payload.number}`))
    expect(running.output()).not.toContain(EXAMPLE_SECRET)
    running.child.kill('SIGTERM')
    expect(await running.exited).toBe(0)
    expect((await stat(join(dir, '.hookpilot', 'state.db'))).isFile()).toBe(true)
  })

  it('a config error exits non-zero with every problem and its path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-serve-'))
    await writeFile(join(dir, 'config.yaml'), 'platforms:\n  webhook:\n    extra:\n      port: http\n      routes:\n        pr: {}\n')
    const { code, output } = await runMain(['serve', '--config', join(dir, 'config.yaml')])
    expect(code).toBe(1)
    expect(output).toContain('platforms.webhook.extra.port: expected a whole number from 0 to 65535')
    expect(output).toContain('platforms.webhook.extra.routes.pr.secret: no secret')
  })

  it('--host is checked like the config host: INSECURE_NO_AUTH on a loopback config cannot be served on 0.0.0.0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-serve-'))
    const config = join(dir, 'config.yaml')
    await writeFile(config, 'platforms:\n  webhook:\n    extra:\n      host: 127.0.0.1\n      port: 0\n      routes:\n        open: { secret: INSECURE_NO_AUTH }\n')
    const { code, output } = await runMain(['serve', '--config', config, '--host', '0.0.0.0'], { env: { WEBHOOK_HOST: '' } })
    expect(code).toBe(1)
    expect(output).toMatch(/routes\.open\.secret: INSECURE_NO_AUTH .*refused on host "0\.0\.0\.0"/)
    expect(output).not.toContain('Listening on')
  })

  it('a missing config file says so', async () => {
    const { code, output } = await runMain(['serve', '--config', 'nope.yaml'])
    expect(code).toBe(1)
    expect(output).toMatch(/Cannot read the configuration nope\.yaml: no such file/)
  })

  it('a taken port names the key to change', async () => {
    running = startCli(['serve', '--config', 'examples/config.yaml', '--port', '0'])
    const [, port] = await running.waitFor(/Listening on [^:]+:(\d+)/)
    const second = await runCli(['serve', '--config', 'examples/config.yaml', '--port', String(port)])
    expect(second.code).toBe(1)
    expect(second.output).toContain(`Port ${port} on 127.0.0.1 is already in use`)
    expect(second.output).toContain('platforms.webhook.extra.port')
  })

  it('bad flags and --help', async () => {
    expect(await runMain(['serve', '--port', 'eighty'])).toMatchObject({ code: 2, output: expect.stringContaining('--port takes a port number') })
    expect(await runMain(['serve', '--bogus'])).toMatchObject({ code: 2, output: expect.stringContaining("Unknown option '--bogus'") })
    expect(await runMain(['serve', '--help'])).toMatchObject({ code: 0, output: expect.stringContaining('Usage: hookpilot serve') })
    expect(await runMain(['serve', 'examples/config.yaml'])).toMatchObject({ code: 2, output: expect.stringContaining('serve takes no arguments') })
    expect(await runMain(['serve', '--host', ''])).toMatchObject({ code: 2, output: expect.stringContaining('--host must not be empty') })
    expect(await runMain(['frobnicate'])).toMatchObject({ code: 2, output: expect.stringContaining('unknown command "frobnicate"') })
    // The bin itself: no command is exit code 2 of a real process, and --version its answer.
    expect(await runCli([])).toMatchObject({ code: 2, output: expect.stringContaining('Usage: hookpilot <command>') })
    // A typo gets the close command or option (issue 25, item 10).
    expect(await runMain(['serv'])).toMatchObject({ code: 2, output: expect.stringContaining('unknown command "serv" (did you mean "serve"?)') })
    expect(await runMain(['chekc'])).toMatchObject({ code: 2, output: expect.stringContaining('unknown command "chekc" (did you mean "check"?)') })
    expect(await runMain(['serve', '--confg', 'x.yaml'])).toMatchObject({ code: 2, output: expect.stringContaining("Unknown option '--confg' (did you mean --config?)") })
    expect(await runMain(['check', '--bogus'])).toMatchObject({ code: 2, output: expect.not.stringContaining('did you mean') })
    expect(await runMain(['--help'])).toMatchObject({ code: 0, output: expect.stringContaining('Usage: hookpilot <command>') })
    expect(await runCli(['--version'])).toMatchObject({ code: 0, stderr: '', output: `hookpilot ${(await import('../../package.json', { with: { type: 'json' } })).default.version}\n` })
  })
})
