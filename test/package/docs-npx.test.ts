/**
 * Every `npx hookpilot` in the docs would, outside the clone, ask the public registry for a package of that name
 * and run it (issue 38, item 14): the docs write `npx --no-install hookpilot`, which runs only an installed one,
 * and say how to run the command elsewhere. README's first two command lines still work from the clone.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../fixtures/cli.js'

/** The user-facing texts: README, docs/ (guides included), examples/, and the CLI's own hints. */
function texts(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]))
  return [join(ROOT, 'README.md'), ...walk(join(ROOT, 'docs')), ...walk(join(ROOT, 'examples')), ...walk(join(ROOT, 'src', 'cli'))]
    .filter((file) => /\.(md|ya?ml|mjs|ts)$/.test(file))
}

describe('docs run the CLI without asking the registry', () => {
  it('no text tells a user to run a plain "npx hookpilot"', () => {
    const plain = texts().flatMap((file) =>
      readFileSync(file, 'utf8').split('\n').flatMap((line, i) => (/npx hookpilot\b/.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
    )
    expect(plain).toEqual([])
  })

  it('getting-started says how to run the command outside the clone', () => {
    const guide = readFileSync(join(ROOT, 'docs', 'getting-started.md'), 'utf8')
    expect(guide).toContain('**Outside the clone.**')
    expect(guide).toContain('npm link')
  })

  it("README's first command runs this clone's CLI through npx --no-install", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const first = /```sh\n([^\n]*)\n([^\n]*)\n```/.exec(readme)
    expect(first?.[1]).toMatch(/^npm ci && npx --no-install hookpilot serve --config examples\/config\.yaml\s+#/)
    expect(first?.[2]).toMatch(/^npm test\s+#/)
    // The same npx form, from the clone, finds the clone's own command (no registry, no install).
    const help = execFileSync('npx', ['--no-install', 'hookpilot', 'serve', '--help'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_offline: 'true' } })
    expect(help).toContain('Usage: hookpilot serve')
  })
})
