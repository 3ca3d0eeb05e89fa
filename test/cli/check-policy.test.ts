/** `hookpilot check --policy FILE`: a repository's policy file checked as the gateway reads it. */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { runMain } from '../fixtures/cli.js'

async function policyFile(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-policy-'))
  await writeFile(join(dir, '.hookpilot.yml'), text)
  return join(dir, '.hookpilot.yml')
}

it('says what a valid policy sets', async () => {
  const file = await policyFile('filters:\n  skip_drafts: true\n  ignore_paths: ["*.lock"]\ninstructions:\n  - paths: ["src/**"]\n    text: Be strict.\nsettings:\n  fail_on: major\n')
  const result = await runMain(['check', '--policy', file])
  expect(result.code, result.output).toBe(0)
  expect(result.stdout).toBe(`${file} is a valid policy: filters (skip_drafts, ignore_paths), 1 instruction, settings (fail_on). The gateway's policy.allow decides which of these keys apply.\n`)
})

it('lists every problem with its path, and exits 1', async () => {
  const file = await policyFile('filters:\n  skip_draft: true\nsettings:\n  fail_on: huge\n')
  const result = await runMain(['check', '--policy', file])
  expect(result.code).toBe(1)
  expect(result.stderr).toContain(`${file}: filters.skip_draft: unknown key: did you mean "skip_drafts"? (check docs/policy.md)`)
  expect(result.stderr).toContain(`${file}: settings.fail_on: expected critical, major, minor or nit`)
})

it('says when there is no such file', async () => {
  const result = await runMain(['check', '--policy', '/nonexistent/.hookpilot.yml'])
  expect(result.code).toBe(2)
  expect(result.stderr).toContain('no policy file at /nonexistent/.hookpilot.yml')
})

it("a route's policy section is checked with the config: its keys, and that it posts as the App", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-policy-'))
  const route = (policy: string) => `agent: { runner: echo }
state: { driver: memory }
platforms:
  webhook:
    extra:
      host: 127.0.0.1
      routes:
        review:
          secret: a-long-enough-secret-0123456789
          events: [pull_request, issue_comment]
          deliver: github_comment
          deliver_extra: { repo: "{repository.full_name}", pr_number: "{number}" }
          policy: ${policy}
`
  await writeFile(join(dir, 'bad.yaml'), route('{ allow: [filters, agent.command], commands: { trusted: [EVERYONE] } }'))
  const bad = await runMain(['check', '--config', join(dir, 'bad.yaml')])
  expect(bad.code).toBe(1)
  expect(bad.stderr).toMatch(/policy\.allow\.1: expected keys among filters, .*not "agent\.command"/)
  expect(bad.stderr).toContain('policy.commands.bot')
  expect(bad.stderr).toMatch(/policy\.commands\.trusted\.0: expected one of OWNER, MEMBER, COLLABORATOR.*not "EVERYONE"/)
  await writeFile(join(dir, 'gh.yaml'), route('{ commands: { bot: hookpilot } }'))
  const gh = await runMain(['check', '--config', join(dir, 'gh.yaml')])
  expect(gh.code).toBe(1)
  expect(gh.stderr).toContain('route "review" has a policy section, which github_comment serves only as a GitHub App: configure platforms.github_app')
  await writeFile(join(dir, 'log.yaml'), route('{ commands: { bot: hookpilot } }').replace('deliver: github_comment', 'deliver: log'))
  const log = await runMain(['check', '--config', join(dir, 'log.yaml')])
  expect(log.code).toBe(1)
  expect(log.stderr).toContain('routes.review.policy: the route delivers to log, which reaches no pull request')
})
