/**
 * A repository's policy file: read as YAML and validated, every problem at once with its path; cut to the keys the
 * gateway allows; its filters judged against a pull request and its instructions chosen per changed file, the
 * nearest entry winning.
 */
import { describe, expect, it } from 'vitest'
import type { PullFacts } from '../../../src/core/code-host-types.js'
import { allowedPolicy } from '../../../src/core/policy/effective-policy.js'
import { skipRuleOf } from '../../../src/core/policy/filters.js'
import { instructionsFor } from '../../../src/core/policy/instructions.js'
import { issueLines, parsePolicy } from '../../../src/core/policy/policy-file.js'
import { pathMatcher } from '../../../src/core/policy/glob.js'

const pull: PullFacts = {
  repo: 'o/r', number: 1, title: 'Fix the parser', body: '', draft: false, author: 'alice', authorIsBot: false,
  labels: ['ready'], baseRef: 'main', baseSha: 'b'.repeat(40), headRef: 'fix/parser', headSha: 'a'.repeat(40),
}
const noPaths = () => Promise.resolve([] as string[])

describe('parsePolicy', () => {
  it('reads every key a repository may set', () => {
    const parsed = parsePolicy(`
filters:
  skip_drafts: true
  skip_authors: ["dependabot[bot]"]
  labels: ["!wip"]
  ignore_paths: ["*.lock"]
instructions:
  - paths: ["src/db/**"]
    text: Check migrations are reversible.
settings:
  fail_on: major
  max_inline_comments: 20
  incremental: true
  debounce_seconds: 120
budgets:
  pull_request: { usd: 2.5 }
  repository_day: { usd: 20, tokens: 4000000 }
`)
    expect(parsed).toEqual({ ok: true, policy: {
      filters: { skip_drafts: true, skip_authors: ['dependabot[bot]'], labels: ['!wip'], ignore_paths: ['*.lock'] },
      instructions: [{ paths: ['src/db/**'], text: 'Check migrations are reversible.' }],
      settings: { fail_on: 'major', max_inline_comments: 20, incremental: true, debounce_seconds: 120 },
      budgets: { pull_request: { usd: 2.5 }, repository_day: { usd: 20, tokens: 4_000_000 } },
    } })
    expect(parsePolicy('')).toEqual({ ok: true, policy: {} })
  })

  it('reports every problem at once with its path, an unknown key with a suggestion', () => {
    const parsed = parsePolicy('filters:\n  skip_draft: true\n  labels: wip\nsettings:\n  fail_on: huge\nagent:\n  command: [rm]\n')
    expect(parsed.ok).toBe(false)
    if (parsed.ok) return
    const lines = issueLines(parsed.issues)
    expect(lines).toContain('filters.skip_draft: unknown key: did you mean "skip_drafts"? (check docs/policy.md)')
    expect(lines.some((l) => l.startsWith('filters.labels: expected a list of strings'))).toBe(true)
    expect(lines).toContain('settings.fail_on: expected critical, major, minor or nit')
    expect(lines.some((l) => l.startsWith('agent: unknown key'))).toBe(true)
  })

  it("refuses the installation's month (the gateway's), an empty budget, and a debounce that is not whole seconds", () => {
    const parsed = parsePolicy('budgets:\n  installation_month: { usd: 100 }\n  repository_day: {}\n  pull_requests: { usd: 1 }\nsettings:\n  debounce_seconds: -5\n')
    expect(parsed.ok ? [] : issueLines(parsed.issues)).toEqual(expect.arrayContaining([
      "budgets.installation_month: the installation's monthly budget is the gateway's (costs.budgets.installation_month): a repository may set pull_request and repository_day",
      'budgets.repository_day: give the budget in usd, in tokens, or both',
      'budgets.pull_requests: unknown key: did you mean "pull_request"? (check docs/policy.md)',
      'settings.debounce_seconds: expected 0 or more',
    ]))
  })

  it('refuses YAML that does not parse, and a file over the size bound without parsing it', () => {
    const broken = parsePolicy('filters: [\n')
    expect(broken.ok).toBe(false)
    expect(broken.ok ? '' : issueLines(broken.issues)[0]).toMatch(/not valid YAML/)
    const large = parsePolicy(`# ${'x'.repeat(200)}\n`, 100)
    expect(large.ok ? '' : issueLines(large.issues)[0]).toBe('(file): the file is 203 bytes; at most 100 are read: make it smaller')
  })
})

describe('allowedPolicy', () => {
  it('keeps what the gateway allows, a section allowing each of its keys, and names what it dropped', () => {
    const parsed = parsePolicy('filters:\n  skip_drafts: true\n  only_authors: [alice]\ninstructions:\n  - paths: ["**"]\n    text: hi\nsettings:\n  fail_on: nit\n  incremental: false\n')
    if (!parsed.ok) throw new Error('expected a valid policy')
    const allowed = allowedPolicy(parsed.policy, ['filters.skip_drafts', 'settings'])
    expect(allowed.policy).toEqual({ filters: { skip_drafts: true }, settings: { fail_on: 'nit', incremental: false } })
    expect(allowed.refused).toEqual(['instructions', 'filters.only_authors'])
  })

  it('allows budgets and the debounce only where allow lists them, as any other key', () => {
    const parsed = parsePolicy('settings:\n  debounce_seconds: 60\n  fail_on: nit\nbudgets:\n  pull_request: { usd: 1 }\n  repository_day: { usd: 5 }\n')
    if (!parsed.ok) throw new Error('expected a valid policy')
    const some = allowedPolicy(parsed.policy, ['settings.fail_on', 'budgets.pull_request'])
    expect(some.policy).toEqual({ settings: { fail_on: 'nit' }, budgets: { pull_request: { usd: 1 } } })
    expect(some.refused).toEqual(['settings.debounce_seconds', 'budgets.repository_day'])
    expect(allowedPolicy(parsed.policy, ['budgets', 'settings']).policy).toEqual(parsed.policy)
  })
})

describe('skipRuleOf', () => {
  it('names the first rule that skips the pull request', async () => {
    expect(await skipRuleOf({ skip_drafts: true }, { ...pull, draft: true }, noPaths)).toEqual({ rule: 'filters.skip_drafts', reason: 'the pull request is a draft' })
    expect(await skipRuleOf({ skip_bots: true }, { ...pull, author: 'renovate[bot]', authorIsBot: true }, noPaths)).toMatchObject({ rule: 'filters.skip_bots' })
    expect(await skipRuleOf({ skip_authors: ['*[bot]'] }, { ...pull, author: 'dependabot[bot]' }, noPaths)).toMatchObject({ rule: 'filters.skip_authors' })
    expect(await skipRuleOf({ only_authors: ['bob'] }, pull, noPaths)).toMatchObject({ rule: 'filters.only_authors' })
    expect(await skipRuleOf({ labels: ['!ready'] }, pull, noPaths)).toEqual({ rule: 'filters.labels', reason: 'it has the label ready' })
    expect(await skipRuleOf({ labels: ['reviewed-by-bot'] }, pull, noPaths)).toEqual({ rule: 'filters.labels', reason: 'it lacks the label reviewed-by-bot' })
    expect(await skipRuleOf({ skip_title: ['wip'] }, { ...pull, title: 'WIP: parser' }, noPaths)).toEqual({ rule: 'filters.skip_title', reason: 'its title holds "wip"' })
    expect(await skipRuleOf({ base_branches: ['main', 'release/*'] }, { ...pull, baseRef: 'develop' }, noPaths)).toMatchObject({ rule: 'filters.base_branches' })
    expect(await skipRuleOf({ base_branches: ['release/*'] }, { ...pull, baseRef: 'release/1.2' }, noPaths)).toBeUndefined()
    expect(await skipRuleOf({ head_branches: ['!dependabot/**'] }, { ...pull, headRef: 'dependabot/npm/x' }, noPaths)).toMatchObject({ rule: 'filters.head_branches' })
  })

  it('skips a change to ignored paths only, and asks for the paths only when it must', async () => {
    let asked = 0
    const paths = (list: string[]) => () => { asked++; return Promise.resolve(list) }
    expect(await skipRuleOf({ ignore_paths: ['*.lock', 'dist/**'] }, pull, paths(['package-lock.lock', 'web/yarn.lock', 'dist/a.js']))).toEqual({ rule: 'filters.ignore_paths', reason: 'every changed file (3) matches ignore_paths' })
    expect(await skipRuleOf({ ignore_paths: ['*.lock'] }, pull, paths(['yarn.lock', 'src/a.ts']))).toBeUndefined()
    expect(asked).toBe(2)
    expect(await skipRuleOf({ skip_drafts: true }, pull, paths(['x']))).toBeUndefined()
    expect(asked).toBe(2)
  })
})

describe('instructionsFor', () => {
  const entries = [
    { paths: ['**'], text: 'Be brief.' },
    { paths: ['src/**'], text: 'Source rules.' },
    { paths: ['src/db/**'], text: 'Check migrations.' },
    { paths: ['docs/*.md'], text: 'Prose.' },
  ]
  it('gives each changed file its nearest entry, each text once, in the file\'s order', () => {
    expect(instructionsFor(entries, ['src/db/m1.sql', 'src/db/m2.sql'])).toBe('For src/db/**:\nCheck migrations.')
    expect(instructionsFor(entries, ['README.md', 'src/a.ts', 'src/db/m.sql'])).toBe('For **:\nBe brief.\n\nFor src/**:\nSource rules.\n\nFor src/db/**:\nCheck migrations.')
    expect(instructionsFor(entries, [])).toBe('')
    expect(instructionsFor(undefined, ['a'])).toBe('')
  })
})

describe('globs', () => {
  it('matches a name in any folder without a slash, from the root with one', () => {
    const m = pathMatcher(['*.lock', 'gen/**', 'a/?.ts'])
    expect(['x.lock', 'deep/y.lock', 'gen/a/b.ts', 'a/b.ts'].every(m)).toBe(true)
    expect(['x.locks', 'src/gen/a.ts', 'a/bc.ts', 'lock'].some(m)).toBe(false)
  })
})
