/**
 * What `npm pack` ships: what a user needs (the build, the sources, the docs and the examples), never the
 * local state a run leaves beside the examples (a SQLite file with jobs, their payloads and answers; the
 * port file; the subscriptions), nor tests.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const stray = join(ROOT, 'examples', '.hookpilot')
const made = !existsSync(stray)

afterAll(() => {
  if (made) rmSync(stray, { recursive: true, force: true })
})

describe('npm pack', () => {
  it('ships the build, the docs and the examples, and no local state or test', () => {
    // What `hookpilot serve --config examples/config.yaml` leaves behind, present as on a developer's clone.
    mkdirSync(stray, { recursive: true })
    for (const name of ['state.db', 'state.db-wal', 'listening.json']) if (!existsSync(join(stray, name))) writeFileSync(join(stray, name), 'local')
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    const files = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]?.files.map((f) => f.path) ?? []
    for (const needed of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/cli/main.js', 'dist/backend-kit/index.d.ts', 'docs/durability.md', 'examples/config.yaml', 'schemas/review.schema.json']) {
      expect(files, needed).toContain(needed)
    }
    const unwanted = files.filter((path) => /(^|\/)\.hookpilot\/|\.db(-wal|-shm)?$|listening\.json$|\.subscriptions\.json$|\.test\.|^test\/|^\.ci\//.test(path))
    expect(unwanted).toEqual([])
  })
})
