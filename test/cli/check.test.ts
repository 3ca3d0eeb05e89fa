/** `hookpilot check`: every problem of a config at once, without starting anything; a summary when it is fine. */
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runMain, startCli } from '../fixtures/cli.js'
import { installFakeGh } from '../fixtures/fake-gh.js'

describe('hookpilot check', () => {
  it('passes the example config with a one-line summary', async () => {
    const result = await runMain(['check', '--config', 'examples/config.yaml'])
    expect(result.code, result.output).toBe(0)
    expect(result.stdout).toBe('examples/config.yaml is valid: 2 routes (github-pr-review, gitlab-mr-review), runner echo, state sqlite, delivering to log.\n')
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
    // A logged-in gh on PATH: the warning below is the only one.
    const gh = installFakeGh()
    const env = gh.env('ok')
    const result = await runMain(['check', '--config', join(dir, 'config.yaml')], { env })
    expect(result.code, result.output).toBe(0)
    expect(result.stderr).toBe('warning: route "review" delivers to github_comment with the echo runner, which answers with its prompt: it would post the whole webhook payload, not a review. Set agent.runner to a real agent (command or openai).\n')
    // serve says it too, at start, before it takes a webhook.
    const serving = startCli(['serve', '--config', join(dir, 'config.yaml'), '--port', '0'], { cwd: dir, env })
    try {
      await serving.waitFor(/Listening on/)
      expect(serving.output()).toMatch(/WARN +route "review" delivers to github_comment with the echo runner/)
      expect(serving.output()).not.toContain('WARNING:')
      expect(serving.output()).not.toContain('route "audit"')
    } finally {
      serving.child.kill('SIGTERM')
      await serving.exited
      gh.remove()
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
    const bad = await runMain(['check', '--config', join(dir, 'config.yaml')])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('platforms.webhook.extra.routes.pr.secrett: unknown key: did you mean "secret"?')
    expect(bad.stderr).toContain('platforms.webhook.extra.routes.pr.evnets: unknown key: did you mean "events"?')
    expect(bad.stderr).toContain('platforms.webhook.extra.routes.chat.secret: environment variable CHAT_SECRET is not set')
    // The checks that need the plugins run in the same pass, on what is still valid.
    expect(bad.stderr).toContain('platforms.webhook.extra.routes.ok.deliver: route "ok" delivers to slack, but platforms.slack is not enabled')
    expect(bad.stderr).toContain('agent.runner: no agent runner named "claude"')
    // The typos and the variable fixed: both platforms and the runner, still reported.
    await writeFile(join(dir, 'config.yaml'), (await readFile(join(dir, 'config.yaml'), 'utf8')).replace('secrett: x, evnets', 'secret: x, events'))
    const next = await runMain(['check', '--config', join(dir, 'config.yaml')], { env: { CHAT_SECRET: 'chat-secret' } })
    expect(next.code).toBe(1)
    expect(next.stderr).toContain('platforms.webhook.extra.routes.chat.deliver: route "chat" delivers to telegram, but platforms.telegram is not enabled')
    expect(next.stderr).toContain('platforms.webhook.extra.routes.ok.deliver: route "ok" delivers to slack, but platforms.slack is not enabled')
    expect(next.stderr).toContain('agent.runner: no agent runner named "claude"; the runners here are: echo, command, openai')
    expect(existsSync(join(dir, '.hookpilot'))).toBe(false) // nothing was started: no state file
  })

  it('reports the costs section like any other: budgets and model limits, each mistake once with its path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-check-'))
    await writeFile(join(dir, 'config.yaml'), `costs:
  budgets:
    pull_requst: { usd: 1 }
    repository_day: {}
    installation_month: { usd: -3 }
    warn_at_percent: 150
    when_exceeded: later
  model_limits:
    gpt-4.1: { requests_per_minit: 10 }
    gpt-5: { window_seconds: 5 }
    o3: { tokens_per_minute: 0 }
platforms:
  webhook:
    extra:
      routes:
        audit: { secret: fine-secret, deliver: log }
`)
    const bad = await runMain(['check', '--config', join(dir, 'config.yaml')])
    expect(bad.code).toBe(1)
    const lines = bad.stderr.split('\n').filter((line) => line.startsWith('  - ')).map((line) => line.slice(4)).sort()
    expect(lines).toEqual([
      'costs.budgets.installation_month.usd: expected a number of 0 or more: the most US dollars, e.g. 2.50',
      'costs.budgets.pull_requst: unknown key: did you mean "pull_request"? (check docs/configuration.md)',
      'costs.budgets.repository_day: give the budget in usd, in tokens, or both',
      'costs.budgets.warn_at_percent: expected a whole number from 1 to 100',
      'costs.budgets.when_exceeded: expected skip (the job ends skipped) or wait (held until the budget renews), not "later"',
      'costs.model_limits.gpt-4.1.requests_per_minit: unknown key: did you mean "requests_per_minute"? (check docs/configuration.md)',
      'costs.model_limits.gpt-5: give requests_per_minute, tokens_per_minute, or both',
      'costs.model_limits.o3.tokens_per_minute: expected a whole number of at least 1',
    ])
  })

  it('reports ten mistakes of every kind in one run, each under the file\'s name (issue 25, item 3)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-check-'))
    const file = join(dir, 'config.yaml')
    await writeFile(file, `log_level: verbose
agent:
  runner: comand
  timeout_secs: 30
state:
  driver: sqlit
platforms:
  webhook:
    extra:
      port: 99999
      routes:
        review:
          secret: "\${REVIEW_SECRET}"
          events: pull_request
          prompt: "Review PR {number in {repository.full_name}"
          deliver: github_coment
          deliver_extra: { repo: "{repository.full_name}" }
        pr: { secret: fine-secret, deliver: github_comment, deliver_extra: { repo: "{repository.full_name}" } }
        chat: { secrett: x, deliver: telegram, deliver_extra: { chat_id: "1" } }
`)
    const result = await runMain(['check', '--config', file])
    expect(result.code).toBe(1)
    const routes = 'platforms.webhook.extra.routes'
    const expected = [
      'log_level: expected debug, info, warn or error, not "verbose"',
      'agent.runner: no agent runner named "comand" (did you mean "command"?)',
      'agent.timeout_secs: unknown key: did you mean "timeout_seconds"?',
      'state.driver: no state backend named "sqlit" (did you mean "sqlite"?)',
      'platforms.webhook.extra.port: expected a whole number from 0 to 65535',
      `${routes}.review.secret: environment variable REVIEW_SECRET is not set`,
      `${routes}.review.events: expected a list of strings, got a string`,
      `${routes}.review.prompt: the placeholder "{number" at character 11 is never closed`,
      `${routes}.review.deliver: route "review" delivers to "github_coment", which no plugin provides (did you mean "github_comment"?)`,
      `${routes}.pr.deliver: route "pr" delivers to github_comment, which needs deliver_extra.repo`,
      `${routes}.chat.secrett: unknown key: did you mean "secret"?`,
      `${routes}.chat.deliver: route "chat" delivers to telegram, but platforms.telegram is not enabled`,
    ]
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('  - '))
    for (const problem of expected) expect(lines.some((line) => line.startsWith(`  - ${problem}`)), `${problem}\n${result.stderr}`).toBe(true)
    expect(lines).toHaveLength(expected.length) // nothing twice, nothing the salvage made up
    expect(result.stderr).toMatch(new RegExp(`^hookpilot check: Invalid configuration in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\n`))
  })

  it('names the file when only the plugins see a problem (a valid schema, a mistyped target)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-check-'))
    const file = join(dir, 'config.yaml')
    await writeFile(file, 'platforms: { webhook: { extra: { routes: { pr: { secret: fine-secret, deliver: lgo } } } } }\n')
    const result = await runMain(['check', '--config', file])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`Invalid configuration in ${file}:\n  - platforms.webhook.extra.routes.pr.deliver: route "pr" delivers to "lgo", which no plugin provides (did you mean "log"?)`)
  })
})
