/**
 * What a new user tripped over, as the CLI runs for them (issue "What new users tripped over"): admin commands
 * without the runtime secrets, an empty config, the port serve really listens on, a test of a push
 * subscription, a github_comment subscription that could never deliver, and errors about values a flag or a
 * variable set.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, runMain, startCli, type RunningCli } from '../fixtures/cli.js'

let running: RunningCli | undefined
afterEach(() => {
  running?.child.kill('SIGKILL')
  running = undefined
})

async function project(config: string): Promise<{ dir: string; config: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-newuser-'))
  await writeFile(join(dir, 'config.yaml'), config)
  return { dir, config: join(dir, 'config.yaml') }
}

const ROUTES = `state:
  driver: memory
platforms:
  webhook:
    extra:
      host: 127.0.0.1
      port: 1
      routes:
        pr: { secret: "\${PR_SECRET}", events: [pull_request] }
`

describe('hookpilot for a new user', () => {
  it('list and subscribe run without the runtime secrets; send says which variable it needs to sign', async () => {
    const { config } = await project(ROUTES)
    const list = await runMain(['list', '--config', config])
    expect(list.code, list.output).toBe(0)
    expect(list.stdout).toMatch(/^pr\s+static/m)
    const sub = await runMain(['subscribe', 'pushes', '--events', 'push', '--config', config])
    expect(sub.code, sub.output).toBe(0)
    const send = await runMain(['send', 'pr', '--config', config])
    expect(send).toMatchObject({ code: 1, stderr: expect.stringContaining('comes from ${PR_SECRET}, which is not set here') })
    const serve = await runCli(['serve', '--config', config])
    expect(serve).toMatchObject({ code: 1, stderr: expect.stringContaining('environment variable PR_SECRET is not set') })
  })

  it('an empty config is refused with what to add, instead of serving nothing', async () => {
    const { config } = await project('state:\n  driver: memory\n')
    const serve = await runCli(['serve', '--config', config])
    expect(serve.code).toBe(1)
    expect(serve.stderr).toContain('Nothing to serve')
    expect(serve.stderr).toContain('hookpilot subscribe <name>')
    expect(serve.output).not.toContain('Listening on')
  })

  it('test reaches the port serve really listens on, and sends a push to a push subscription', async () => {
    const { dir, config } = await project(ROUTES)
    expect((await runMain(['subscribe', 'pushes', '--events', 'push', '--config', config])).code).toBe(0)
    running = startCli(['serve', '--config', config, '--port', '0'], { env: { PR_SECRET: 'pr-secret-0123456789' }, cwd: dir })
    const [, port] = await running.waitFor(/Listening on 127\.0\.0\.1:(\d+)/)
    // The config says port 1; the record serve wrote says where it is.
    const test = await runMain(['test', 'pushes', '--config', config])
    expect(test.code, test.output).toBe(0)
    expect(test.stdout).toContain(`POST http://127.0.0.1:${port}/webhooks/pushes (event push`)
    expect(test.stdout).toContain('"status":"accepted"')
    const list = await runMain(['list', '--json', '--config', config])
    expect(JSON.parse(list.stdout)).toContainEqual(expect.objectContaining({ name: 'pushes', url: `http://127.0.0.1:${port}/webhooks/pushes` }))
  })

  it('subscribe refuses a github_comment route that could never deliver, and takes --deliver-extra and --actions', async () => {
    const { dir, config } = await project(ROUTES)
    const refused = await runMain(['subscribe', 'review', '--deliver', 'github_comment', '--config', config])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('needs deliver_extra.repo')
    expect(refused.stderr).toContain('--deliver-extra KEY=VALUE')
    const ok = await runMain([
      'subscribe', 'review', '--deliver', 'github_comment', '--deliver-extra', 'repo={repository.full_name}',
      '--deliver-extra', 'pr_number={number}', '--actions', 'opened,synchronize', '--config', config,
    ])
    expect(ok.code, ok.output).toBe(0)
    expect(ok.stdout).toContain('Actions:  opened, synchronize')
    const file = JSON.parse(await readFile(join(dir, '.subscriptions.json'), 'utf8')) as { subscriptions: Record<string, { deliver_extra: unknown; actions: unknown }> }
    expect(file.subscriptions['review']).toMatchObject({ deliver_extra: { repo: '{repository.full_name}', pr_number: '{number}' }, actions: ['opened', 'synchronize'] })
    const bad = await runMain(['subscribe', 'x', '--deliver-extra', 'no-equals-sign', '--config', config])
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--deliver-extra takes KEY=VALUE') })
  })

  it('a bad value from WEBHOOK_PORT is blamed on it, not on the file', async () => {
    const { config } = await project(ROUTES)
    const fromEnv = await runCli(['serve', '--config', config], { env: { PR_SECRET: 'x'.repeat(20), WEBHOOK_PORT: '99999' } })
    expect(fromEnv.code).toBe(1)
    expect(fromEnv.stderr).toMatch(/platforms\.webhook\.extra\.port: .*\(this value came from WEBHOOK_PORT, not from the file\)/)
  })
})
