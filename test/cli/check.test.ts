/** `hookpilot check`: every problem of a config at once, without starting anything; a summary when it is fine. */
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli, startCli } from '../fixtures/cli.js'

describe('hookpilot check', () => {
  it('passes the example config with a one-line summary', async () => {
    const result = await runCli(['check', '--config', 'examples/config.yaml'])
    expect(result.code, result.output).toBe(0)
    expect(result.stdout).toBe('examples/config.yaml is valid: 1 route (github-pr-review), runner echo, state sqlite, delivering to log.\n')
  })

  it('warns loudly when the echo runner would post its prompt (the whole payload without prompt:) to a pull request', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-check-'))
    await writeFile(join(dir, 'config.yaml'), `platforms:
  webhook:
    extra:
      routes:
        review: { secret: fine-secret, deliver: github_comment, deliver_extra: { repo: "{repository.full_name}", pr_number: "{number}" } }
        audit: { secret: fine-secret, deliver: log }
`)
    const result = await runCli(['check', '--config', join(dir, 'config.yaml')])
    expect(result.code, result.output).toBe(0)
    expect(result.stderr).toBe('warning: route "review" delivers to github_comment with the echo runner, which answers with its prompt: it would post the whole webhook payload, not a review. Set agent.runner to a real agent (command or openai).\n')
    // serve says it too, at start, before it takes a webhook.
    const serving = startCli(['serve', '--config', join(dir, 'config.yaml'), '--port', '0'], { cwd: dir })
    try {
      await serving.waitFor(/Listening on/)
      expect(serving.output()).toContain('WARNING: route "review" delivers to github_comment with the echo runner')
      expect(serving.output()).not.toContain('route "audit"')
    } finally {
      serving.child.kill('SIGTERM')
      await serving.exited
    }
  })

  it('reports every problem at once: two typos in one route, an unset variable, a disabled platform, an unknown runner', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-check-'))
    await writeFile(join(dir, 'config.yaml'), `agent:
  runner: claude
platforms:
  webhook:
    extra:
      routes:
        pr: { secrett: x, evnets: [pull_request] }
        chat: { secret: "\${CHAT_SECRET}", deliver: telegram, deliver_extra: { chat_id: "1" } }
        ok: { secret: fine-secret, deliver: slack, deliver_extra: { chat_id: C1 } }
`)
    const bad = await runCli(['check', '--config', join(dir, 'config.yaml')])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('platforms.webhook.extra.routes.pr.secrett: unknown key: did you mean "secret"?')
    expect(bad.stderr).toContain('platforms.webhook.extra.routes.pr.evnets: unknown key: did you mean "events"?')
    expect(bad.stderr).toContain('platforms.webhook.extra.routes.chat.secret: environment variable CHAT_SECRET is not set')
    // The typos and the variable fixed, the checks that need the plugins run: both platforms and the runner, at once.
    await writeFile(join(dir, 'config.yaml'), (await readFile(join(dir, 'config.yaml'), 'utf8')).replace('secrett: x, evnets', 'secret: x, events'))
    const next = await runCli(['check', '--config', join(dir, 'config.yaml')], { env: { CHAT_SECRET: 'chat-secret' } })
    expect(next.code).toBe(1)
    expect(next.stderr).toContain('platforms.webhook.extra.routes.chat.deliver: route "chat" delivers to telegram, but platforms.telegram is not enabled')
    expect(next.stderr).toContain('platforms.webhook.extra.routes.ok.deliver: route "ok" delivers to slack, but platforms.slack is not enabled')
    expect(next.stderr).toContain('agent.runner: no agent runner named "claude"; the runners here are: echo, command, openai')
    expect(existsSync(join(dir, '.hookpilot'))).toBe(false) // nothing was started: no state file
  })
})
