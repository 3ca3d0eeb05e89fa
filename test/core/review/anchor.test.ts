/**
 * Anchoring on the worked example of GitHub's review API (test/fixtures/reviews/github-pull-files.json: a modified
 * file with two hunks, a rename with a change, a binary file added without a patch, a removed file): which
 * findings become comments where, which are folded and why, the cap, and `refold`.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { anchorReview, refold, type CommentPosition, type Placement } from '../../../src/core/review/anchor.js'
import type { ChangedFile } from '../../../src/core/review/diff-lines.js'
import type { Finding, ReviewDocument } from '../../../src/core/review/document.js'

const files = JSON.parse(readFileSync(new URL('../../fixtures/reviews/github-pull-files.json', import.meta.url), 'utf8')) as ChangedFile[]
const handlers = 'src/app/handlers.py'

/** A placement without the diff lines an inline one carries (checked on their own below). */
type Where = { kind: 'inline', position: CommentPosition } | Extract<Placement, { kind: 'folded' }>

function at(finding: Partial<Finding> & Pick<Finding, 'line'>): Where {
  const review: ReviewDocument = { summary: 's', findings: [{ path: handlers, side: 'RIGHT', severity: 'major', body: 'b', ...finding }] }
  const placement = anchorReview(review, files).placements[0]!
  return placement.kind === 'inline' ? { kind: 'inline', position: placement.position } : placement
}

describe('anchoring a finding on the diff (GitHub\'s worked example)', () => {
  it('puts added and context lines on the new side, removed and context lines on the old side', () => {
    expect(at({ line: 12 })).toEqual({ kind: 'inline', position: { path: handlers, line: 12, side: 'RIGHT' } })
    expect(at({ line: 13 })).toMatchObject({ kind: 'inline' })
    expect(at({ line: 14 })).toMatchObject({ kind: 'inline' }) // context, new numbering
    expect(at({ line: 12, side: 'LEFT' })).toEqual({ kind: 'inline', position: { path: handlers, line: 12, side: 'LEFT' } }) // `return None`
    expect(at({ line: 13, side: 'LEFT' })).toMatchObject({ kind: 'inline' }) // the same context line, old numbering
    expect(at({ line: 42 })).toMatchObject({ kind: 'inline' }) // second hunk
    expect(at({ line: 41, side: 'LEFT' })).toMatchObject({ kind: 'inline' }) // removed in the second hunk
  })

  it('gives an inline finding the diff lines at its ends, both numbers each, as GitLab\'s positions need them', () => {
    const lines = (finding: Partial<Finding> & Pick<Finding, 'line'>) => {
      const placement = anchorReview({ summary: 's', findings: [{ path: handlers, side: 'RIGHT', severity: 'major', body: 'b', ...finding }] }, files).placements[0]!
      return placement.kind === 'inline' ? placement.lines : undefined
    }
    // The worked example's line codes: removed LEFT 12 is _12_12, added RIGHT 13 is _13_13; context RIGHT 14 is old 13.
    expect(lines({ line: 12, side: 'LEFT' })).toEqual({ start: { kind: 'removed', old: 12, new: 12 }, end: { kind: 'removed', old: 12, new: 12 } })
    expect(lines({ line: 13 })?.end).toEqual({ kind: 'added', old: 13, new: 13 })
    expect(lines({ start_line: 12, line: 14 })).toEqual({ start: { kind: 'added', old: 13, new: 12 }, end: { kind: 'context', old: 13, new: 14 } })
    expect(lines({ line: 42 })?.end).toEqual({ kind: 'added', old: 42, new: 42 })
  })

  it('folds a line no hunk shows on its side, and a side the line is not on', () => {
    expect(at({ line: 30 })).toEqual({ kind: 'folded', reason: 'outside_hunks' })
    expect(at({ line: 17 })).toEqual({ kind: 'folded', reason: 'outside_hunks' }) // just past the first hunk
    expect(at({ line: 9 })).toEqual({ kind: 'folded', reason: 'outside_hunks' }) // just before it
    expect(at({ line: 42, side: 'LEFT' })).toMatchObject({ kind: 'inline' }) // context on the old side (old 42)
    expect(at({ line: 46, side: 'LEFT' })).toEqual({ kind: 'folded', reason: 'outside_hunks' }) // old side ends at 45
  })

  it('sends a range inside one hunk with its start, and folds one across hunks or half outside', () => {
    expect(at({ start_line: 12, line: 14 })).toEqual({ kind: 'inline', position: { path: handlers, line: 14, side: 'RIGHT', start_line: 12, start_side: 'RIGHT' } })
    expect(at({ start_line: 13, line: 42 })).toEqual({ kind: 'folded', reason: 'across_hunks' })
    expect(at({ start_line: 5, line: 12 })).toEqual({ kind: 'folded', reason: 'outside_hunks' })
    // GitHub refuses start_line == line: it is sent as one line.
    expect(at({ start_line: 13, line: 13 })).toEqual({ kind: 'inline', position: { path: handlers, line: 13, side: 'RIGHT' } })
  })

  it('addresses a renamed file by its new name, found by either name', () => {
    expect(at({ path: 'src/app/routing.py', line: 1 })).toEqual({ kind: 'inline', position: { path: 'src/app/routing.py', line: 1, side: 'RIGHT' } })
    expect(at({ path: 'src/app/routes.py', line: 1, side: 'LEFT' })).toEqual({ kind: 'inline', position: { path: 'src/app/routing.py', line: 1, side: 'LEFT' } })
  })

  it('folds a file without a patch, a file not in the diff, and the side a file does not have', () => {
    expect(at({ path: 'docs/diagram.png', line: 1 })).toEqual({ kind: 'folded', reason: 'no_patch' })
    expect(at({ path: 'src/app/other.py', line: 1 })).toEqual({ kind: 'folded', reason: 'file_not_in_diff' })
    expect(at({ path: 'src/app/legacy.py', line: 1 })).toEqual({ kind: 'folded', reason: 'removed_file_right' })
    expect(at({ path: 'src/app/legacy.py', line: 2, side: 'LEFT' })).toMatchObject({ kind: 'inline' })
    expect(at({ path: 'docs/diagram.png', line: 1, side: 'LEFT' })).toEqual({ kind: 'folded', reason: 'added_file_left' })
  })

  it('folds a rename without changes, and a patch that cannot be read', () => {
    const moved: ChangedFile[] = [
      { filename: 'b.ts', previous_filename: 'a.ts', status: 'renamed' },
      { filename: 'c.ts', status: 'modified', patch: '@@ -1,3 +1,3 @@\n a\n+b' },
    ]
    const review: ReviewDocument = { summary: 's', findings: [
      { path: 'b.ts', line: 1, side: 'RIGHT', severity: 'nit', body: 'x' },
      { path: 'c.ts', line: 1, side: 'RIGHT', severity: 'nit', body: 'y' },
    ] }
    expect(anchorReview(review, moved).placements).toEqual([
      { kind: 'folded', reason: 'renamed_without_changes' },
      { kind: 'folded', reason: 'unreadable_patch' },
    ])
  })
})

describe('the inline cap and refold', () => {
  const severities = ['nit', 'critical', 'minor', 'major', 'critical', 'nit'] as const
  const review: ReviewDocument = {
    summary: 's',
    findings: severities.map((severity, i) => ({ path: handlers, line: 12 + (i % 3), side: 'RIGHT', severity, body: `f${i}` })),
  }

  it('keeps the most severe inline, in the document\'s order within a severity, and folds the rest', () => {
    const { placements } = anchorReview(review, files, { maxInline: 3 })
    expect(placements.map((p) => p.kind)).toEqual(['folded', 'inline', 'folded', 'inline', 'inline', 'folded'])
    expect(placements.filter((p) => p.kind === 'folded').every((p) => p.kind === 'folded' && p.reason === 'over_cap')).toBe(true)
    expect(anchorReview(review, files, { maxInline: 0 }).placements.every((p) => p.kind === 'folded')).toBe(true)
    expect(() => anchorReview(review, files, { maxInline: -1 })).toThrow(RangeError)
    expect(anchorReview(review, files).maxInline).toBe(30) // docs/reviews.md names the default
  })

  it('refold folds the refused inline findings, and leaves folded ones and unknown indexes as they were', () => {
    const anchored = anchorReview(review, files, { maxInline: 3 })
    const again = refold(anchored, [1, 0, 99])
    expect(again.placements[1]).toEqual({ kind: 'folded', reason: 'refused' })
    expect(again.placements[0]).toEqual({ kind: 'folded', reason: 'over_cap' })
    expect(again.placements[3]).toEqual(anchored.placements[3])
    expect(again.placements).toHaveLength(review.findings.length)
    expect(anchored.placements[1]).toMatchObject({ kind: 'inline' }) // the original is not changed
  })
})
