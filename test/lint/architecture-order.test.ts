/**
 * docs/architecture.md writes the order of src/core's folders for people; scripts/eslint/core-layers.js declares it
 * for the linter. This keeps the two equal, so the written order is the enforced one.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CORE_LAYERS, CORE_ROOT, KERNEL } from '../../scripts/eslint/core-layers.js'

const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8')

/** The numbered entries of the section, as core-layers.js spells them (`*.ts`, `log`, `jobs/lifecycle`). */
function writtenOrder(): string[] {
  const start = doc.indexOf("## The order of `src/core`'s folders")
  expect(start, 'docs/architecture.md has the section').toBeGreaterThanOrEqual(0)
  const end = doc.indexOf('\n## ', start + 1)
  const section = doc.slice(start, end === -1 ? undefined : end)
  return [...section.matchAll(/^\d+\. `([^`]+)`/gm)].map(([, entry]) => entry!.replace(`${CORE_ROOT}/`, '').replace(/\/$/, ''))
}

describe("the order of src/core's folders", () => {
  it('docs/architecture.md writes the order the linter enforces, entry for entry', () => {
    expect(writtenOrder()).toEqual([...CORE_LAYERS])
  })

  it('starts with the kernel, and every entry is an existing folder of src/core', () => {
    expect(CORE_LAYERS[0]).toBe(KERNEL)
    for (const layer of CORE_LAYERS.slice(1)) {
      const folder = new URL(`../../${CORE_ROOT}/${layer}`, import.meta.url)
      expect(existsSync(folder) && statSync(folder).isDirectory(), layer).toBe(true)
    }
  })
})
