/**
 * A route's memory of its last review: a finding's key (its file and title, not its line nor severity), the note's
 * value written and read back (most severe first, cut at 100, a value of another shape read as none), and the
 * open findings as the prompt shows them.
 */
import { describe, expect, it } from 'vitest'
import type { Finding } from '../../../src/core/review/document.js'
import { findingKey, findingTitle, MAX_NOTED_FINDINGS, memoryValue, notedFinding, openFindingsText, readMemory } from '../../../src/core/review/review-memory.js'

const finding = (overrides: Partial<Finding> = {}): Finding => ({ path: 'src/a.ts', line: 3, side: 'RIGHT', severity: 'minor', body: 'The body.\nMore.', ...overrides })

describe('a finding across reviews', () => {
  it('is known by its file and title: moved to another line or graded otherwise it is the same; another title or file is another', () => {
    const key = findingKey(finding({ title: 'Null check' }))
    expect(key).toMatch(/^[0-9a-f]{16}$/)
    expect(findingKey(finding({ title: '  null   CHECK ', line: 40, severity: 'major' }))).toBe(key)
    expect(findingKey(finding({ title: 'Another' }))).not.toBe(key)
    expect(findingKey(finding({ title: 'Null check', path: 'src/b.ts' }))).not.toBe(key)
  })

  it('is titled by its title, else its body\'s first non-empty line, on one line and short', () => {
    expect(findingTitle(finding())).toBe('The body.')
    expect(findingTitle(finding({ body: '\n\n  first   line \nsecond' }))).toBe('first line')
    expect(findingTitle(finding({ title: 'x'.repeat(200) }))).toHaveLength(120)
  })
})

describe('the note', () => {
  it('is written most severe first, cut at 100, and read back', () => {
    const findings = [notedFinding(finding({ severity: 'nit' })), notedFinding(finding({ severity: 'critical', title: 'Bad' }), 'PRRT_1')]
    const value = memoryValue({ head: 'b'.repeat(40), base: 'c'.repeat(40), findings })
    expect(readMemory(value)).toEqual({ head: 'b'.repeat(40), base: 'c'.repeat(40), findings: [findings[1], findings[0]] })
    const many = Array.from({ length: 150 }, (_, i) => notedFinding(finding({ title: `t${i}` })))
    expect(readMemory(memoryValue({ head: 'h', base: 'b', findings: many }))?.findings).toHaveLength(MAX_NOTED_FINDINGS)
  })

  it('of another shape or version is read as none, and a finding of another shape is left out', () => {
    for (const value of [undefined, null, 'x', [], { v: 2, head: 'h', base: 'b', findings: [] }, { v: 1, head: 1, base: 'b', findings: [] }]) expect(readMemory(value)).toBeUndefined()
    expect(readMemory({ v: 1, head: 'h', base: 'b', findings: [{ key: 'k' }, 'x', { key: 'k', path: 'p', line: 1, side: 'RIGHT', severity: 'nit', title: 't' }] })?.findings)
      .toEqual([{ key: 'k', path: 'p', line: 1, side: 'RIGHT', severity: 'nit', title: 't' }])
  })
})

describe('the open findings in the prompt', () => {
  it('one a line, the old file marked, backticks made plain; none when there are none', () => {
    expect(openFindingsText([])).toBe('none')
    expect(openFindingsText([notedFinding(finding({ title: 'Use `let`', severity: 'major', line: 7 })), notedFinding(finding({ side: 'LEFT', line: 2 }))]))
      .toBe("- major src/a.ts:7: Use 'let'\n- minor src/a.ts:2 (old file): The body.")
  })
})
