/**
 * The corpus: hundreds of findings, generated systematically (every file kind × side × line kind × shape, the
 * exact lines drawn by a seeded generator that prints its seed) over the hand-written diff of
 * test/fixtures/reviews/corpus-diff.ts, anchored and rendered as a review. The claims:
 *
 * - every finding is visible exactly once, in a comment or in the body (each carries a unique token in its title,
 *   which rendering never shortens), with the inline cap, and again after the host refuses some comments;
 * - a finding is inline exactly when the diff shows its line (or both ends of its range, in one hunk) on its side,
 *   on the file's new name, and otherwise folded for the reason the diff gives;
 * - nothing is inline outside a hunk.
 *
 * What the diff shows is worked out here from the fixture's text by a walker of the test's own (not jsdiff, not
 * src/core/review), so the code under test is checked against an independent reading of the same patches.
 */
import { describe, expect, it } from 'vitest'
import { anchorReview, refold, type FoldReason, type Placement } from '../../src/core/review/anchor.js'
import { validateDocument, type Finding, type ReviewDocument, type Severity, type Side } from '../../src/core/review/document.js'
import { renderReview, type RenderedReview } from '../../src/core/review/render.js'
import { REVIEW_LIMITS } from '../../src/core/review/schema.js'
import { CORPUS_FILES, UNCHANGED_PATHS, type CorpusFile } from '../fixtures/reviews/corpus-diff.js'
import { seededRandom } from '../fixtures/seed.js'

// ---------------------------------------------------------------------------------------------------------------
// The independent line map: each patch walked line by line from its `@@` headers.

type Kind = '+' | '-' | ' '

/** One line of a patch: its kind, its numbers on the sides it is on, the hunk it is in. */
interface PatchLine {
  readonly kind: Kind
  readonly old?: number
  readonly new?: number
  readonly hunk: number
}

interface FileMap {
  readonly file: CorpusFile
  readonly lines: readonly PatchLine[]
  /** Side → line number → hunk. */
  readonly right: ReadonlyMap<number, number>
  readonly left: ReadonlyMap<number, number>
  readonly hunkCount: number
}

function mapOf(file: CorpusFile): FileMap {
  const lines: PatchLine[] = []
  const right = new Map<number, number>()
  const left = new Map<number, number>()
  let hunk = -1
  let oldLine = 0
  let newLine = 0
  for (const text of file.patch?.split('\n') ?? []) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(text)
    if (header !== null) {
      hunk++
      oldLine = Number(header[1])
      newLine = Number(header[3])
      continue
    }
    if (text.startsWith('\\')) continue // "\ No newline at end of file"
    const kind = text[0] as Kind
    if (kind === '+') {
      lines.push({ kind, new: newLine, hunk })
      right.set(newLine++, hunk)
    } else if (kind === '-') {
      lines.push({ kind, old: oldLine, hunk })
      left.set(oldLine++, hunk)
    } else {
      expect(kind, `${file.filename}: a context line starts with a space`).toBe(' ')
      lines.push({ kind, old: oldLine, new: newLine, hunk })
      right.set(newLine++, hunk)
      left.set(oldLine++, hunk)
    }
  }
  return { file, lines, right, left, hunkCount: hunk + 1 }
}

const MAPS = CORPUS_FILES.map(mapOf)

function mapNamed(path: string): FileMap | undefined {
  return MAPS.find((m) => m.file.filename === path) ?? MAPS.find((m) => m.file.previous_filename === path)
}

/** Where the finding should go, read from the independent map. */
function expectedPlacement(finding: Finding): { kind: 'inline', path: string, hunk: number } | { kind: 'folded', reason: FoldReason } {
  const map = mapNamed(finding.path)
  if (map === undefined) return { kind: 'folded', reason: 'file_not_in_diff' }
  if (finding.side === 'RIGHT' && map.file.status === 'removed') return { kind: 'folded', reason: 'removed_file_right' }
  if (finding.side === 'LEFT' && map.file.status === 'added') return { kind: 'folded', reason: 'added_file_left' }
  if (map.file.patch === undefined) {
    return { kind: 'folded', reason: map.file.status === 'renamed' || map.file.status === 'copied' ? 'renamed_without_changes' : 'no_patch' }
  }
  const side = finding.side === 'RIGHT' ? map.right : map.left
  const end = side.get(finding.line)
  const start = side.get(finding.start_line ?? finding.line)
  if (end === undefined || start === undefined) return { kind: 'folded', reason: 'outside_hunks' }
  if (start !== end) return { kind: 'folded', reason: 'across_hunks' }
  return { kind: 'inline', path: map.file.filename, hunk: end }
}

// ---------------------------------------------------------------------------------------------------------------
// The generator.

const random = seededRandom('review corpus')
const pick = <T>(items: readonly T[]): T => items[Math.floor(random.next() * items.length)]!
const SEVERITY_LIST: readonly Severity[] = ['critical', 'major', 'minor', 'nit']

/** The line kinds a finding may aim at, on the side it names. */
type Aim = 'added' | 'removed' | 'context' | 'before_first_hunk' | 'between_hunks' | 'after_last_hunk' | 'line_one'
const AIMS: readonly Aim[] = ['added', 'removed', 'context', 'before_first_hunk', 'between_hunks', 'after_last_hunk', 'line_one']
type Shape = 'single' | 'range_in_hunk' | 'range_across_hunks' | 'range_half_outside' | 'range_backwards'
const SHAPES: readonly Shape[] = ['single', 'range_in_hunk', 'range_across_hunks', 'range_half_outside', 'range_backwards']

/** The number a line of the patch has on `side` (a removed line has no new number: its old one is used, wrongly on purpose). */
function numberOn(line: PatchLine, side: Side): number {
  return (side === 'RIGHT' ? line.new ?? line.old : line.old ?? line.new)!
}

/** A line number for `aim` on `side` of `map`, or undefined when the file has no such line. */
function lineFor(map: FileMap | undefined, side: Side, aim: Aim): number | undefined {
  const numbers = side === 'RIGHT' ? map?.right : map?.left
  const shown = [...(numbers?.keys() ?? [])].sort((a, b) => a - b)
  const kindOf: Partial<Record<Aim, Kind>> = { added: '+', removed: '-', context: ' ' }
  const kind = kindOf[aim]
  if (kind !== undefined) {
    const candidates = (map?.lines ?? []).filter((l) => l.kind === kind)
    return candidates.length === 0 ? undefined : numberOn(pick(candidates), side)
  }
  if (aim === 'line_one') return 1
  if (shown.length === 0) return aim === 'after_last_hunk' ? 1 + Math.floor(random.next() * 50) : undefined
  if (aim === 'before_first_hunk') return shown[0]! > 1 ? 1 + Math.floor(random.next() * (shown[0]! - 1)) : undefined
  if (aim === 'after_last_hunk') return shown.at(-1)! + 1 + Math.floor(random.next() * 20)
  const gaps = shown.flatMap((n, i) => (i > 0 && n - shown[i - 1]! > 1 ? [[shown[i - 1]! + 1, n - 1] as const] : []))
  if (gaps.length === 0) return undefined
  const [low, high] = pick(gaps)
  return low + Math.floor(random.next() * (high - low + 1))
}

/** The start of a range ending at `line`, shaped as asked (undefined: no such range in this file). */
function startFor(map: FileMap | undefined, side: Side, line: number, shape: Shape): number | undefined {
  const numbers = side === 'RIGHT' ? map?.right : map?.left
  const hunk = numbers?.get(line)
  const inHunk = (h: number | undefined): number[] => [...(numbers?.entries() ?? [])].filter(([, x]) => x === h).map(([n]) => n)
  switch (shape) {
    case 'single': return undefined
    case 'range_in_hunk': {
      const before = inHunk(hunk).filter((n) => n < line)
      return before.length === 0 ? undefined : pick(before)
    }
    case 'range_across_hunks': {
      const earlier = [...(numbers?.entries() ?? [])].filter(([n, h]) => hunk !== undefined && h < hunk && n < line).map(([n]) => n)
      return earlier.length === 0 ? undefined : pick(earlier)
    }
    case 'range_half_outside': return line > 1 ? Math.max(1, line - 1 - Math.floor(random.next() * 30)) : undefined
    case 'range_backwards': {
      const after = inHunk(hunk).filter((n) => n > line)
      return after.length === 0 ? undefined : pick(after)
    }
  }
}

/** Every file (and paths the pull request does not change) × side × aim × shape, each drawn twice. */
function generate(): Finding[] {
  const findings: Finding[] = []
  const paths = [...CORPUS_FILES.map((f) => f.filename), ...UNCHANGED_PATHS]
  for (const path of paths) {
    const map = mapNamed(path)
    for (const side of ['RIGHT', 'LEFT'] as const) {
      for (const aim of AIMS) {
        for (const shape of SHAPES) {
          for (let draw = 0; draw < 2; draw++) {
            const line = lineFor(map, side, aim)
            if (line === undefined) continue
            const start = startFor(map, side, line, shape)
            if (shape !== 'single' && start === undefined) continue
            const id = `F${String(findings.length).padStart(4, '0')}`
            // A renamed file is named by its old path now and then (agents read the old side under it).
            const named = map?.file.previous_filename !== undefined && side === 'LEFT' && random.next() < 0.5 ? map.file.previous_filename : path
            const withSuggestion = side === 'RIGHT' && random.next() < 0.4
            findings.push({
              path: named,
              line: start !== undefined && shape === 'range_backwards' ? start : line,
              ...(start === undefined ? {} : { start_line: shape === 'range_backwards' ? line : start }),
              side,
              severity: pick(SEVERITY_LIST),
              title: `${id} ${aim} ${shape}`,
              body: `Finding ${id}: ${side} ${aim} ${shape} in ${path}.${random.next() < 0.2 ? '\n\n```ts\nconst unclosed = true' : ''}`,
              ...(withSuggestion ? { suggestion: random.next() < 0.2 ? '' : `// replaced by ${id}\n` } : {}),
            })
          }
        }
      }
    }
  }
  return findings
}

/** Checks the findings as documents of at most REVIEW_LIMITS.findings each; returns them as the schema reads them. */
function asDocuments(raw: readonly Finding[]): ReviewDocument {
  const findings: Finding[] = []
  for (let i = 0; i < raw.length; i += REVIEW_LIMITS.findings) {
    const chunk = raw.slice(i, i + REVIEW_LIMITS.findings)
    const parsed = validateDocument({ summary: 'Corpus review.', findings: chunk })
    if (!parsed.ok) throw new Error(`the corpus wrote an invalid document: ${JSON.stringify(parsed.issues.slice(0, 3))}`)
    findings.push(...parsed.review.findings)
  }
  return { summary: 'Corpus review.', verdict: 'comment', findings }
}

const RAW = generate()
const REVIEW = asDocuments(RAW)
const IDS = REVIEW.findings.map((f) => f.title!.slice(0, 5))

/** How many times each finding's token is visible in the rendered review (body and comments together). */
function visibleCounts(rendered: RenderedReview): number[] {
  const texts = [rendered.body, ...rendered.comments.map((c) => c.body)]
  return IDS.map((id) => texts.reduce((sum, text) => sum + text.split(`${id} `).length - 1, 0))
}

function expectEachOnce(rendered: RenderedReview): void {
  const counts = visibleCounts(rendered)
  const wrong = counts.flatMap((count, i) => (count === 1 ? [] : [`${IDS[i]}: ${count}`]))
  expect(wrong, `seed ${random.seed}`).toEqual([])
  // The placements say the same: each finding in exactly one of comments and folded.
  const places = [...rendered.comments.map((c) => c.finding), ...rendered.folded].sort((a, b) => a - b)
  expect(places).toEqual(REVIEW.findings.map((_, i) => i))
}

function expectInsideHunks(rendered: RenderedReview): void {
  for (const comment of rendered.comments) {
    const map = MAPS.find((m) => m.file.filename === comment.path)
    expect(map, `${comment.path} is a file of the diff under its new name`).toBeDefined()
    const side = (s: Side) => (s === 'RIGHT' ? map!.right : map!.left)
    const hunk = side(comment.side).get(comment.line)
    expect(hunk, `seed ${random.seed}: ${comment.path} ${comment.side} ${comment.line} is in a hunk`).toBeDefined()
    if (comment.start_line !== undefined) {
      expect(comment.start_line).toBeLessThan(comment.line)
      expect(side(comment.start_side!).get(comment.start_line), `seed ${random.seed}: the range's start is in the same hunk`).toBe(hunk)
    }
  }
}

describe('the review corpus', () => {
  it('is large and covers every kind of file, side, line kind and shape', () => {
    expect(REVIEW.findings.length).toBeGreaterThanOrEqual(200)
    console.log(`review corpus: ${REVIEW.findings.length} findings over ${MAPS.length} files`)
    const titles = REVIEW.findings.map((f) => f.title!)
    for (const aim of AIMS) expect(titles.some((t) => t.includes(` ${aim} `)), aim).toBe(true)
    for (const shape of SHAPES) expect(titles.some((t) => t.endsWith(` ${shape}`)), shape).toBe(true)
    const reasons = new Set(REVIEW.findings.map((f) => { const e = expectedPlacement(f); return e.kind === 'inline' ? 'inline' : e.reason }))
    expect([...reasons].sort()).toEqual(['across_hunks', 'added_file_left', 'file_not_in_diff', 'inline', 'no_patch', 'outside_hunks', 'removed_file_right', 'renamed_without_changes'])
    expect(MAPS.reduce((sum, m) => sum + m.lines.length, 0)).toBeGreaterThan(80)
  })

  it('puts each finding inline exactly when the diff shows its lines in one hunk, on the right line, else folds it for the diff\'s reason', () => {
    const anchored = anchorReview(REVIEW, CORPUS_FILES, { maxInline: REVIEW.findings.length })
    const mismatches: string[] = []
    anchored.placements.forEach((placement: Placement, i) => {
      const finding = REVIEW.findings[i]!
      const expected = expectedPlacement(finding)
      if (expected.kind === 'folded') {
        if (placement.kind !== 'folded' || placement.reason !== expected.reason) mismatches.push(`${IDS[i]}: ${JSON.stringify(placement)}, expected folded (${expected.reason})`)
        return
      }
      const single = finding.start_line === undefined || finding.start_line === finding.line
      const position = { path: expected.path, line: finding.line, side: finding.side, ...(single ? {} : { start_line: finding.start_line, start_side: finding.side }) }
      if (placement.kind !== 'inline' || JSON.stringify(placement.position) !== JSON.stringify(position)) {
        mismatches.push(`${IDS[i]}: ${JSON.stringify(placement)}, expected inline at ${JSON.stringify(position)}`)
        return
      }
      // The diff line it carries is the one the fixture's text has there: its kind and its numbers.
      const map = mapNamed(finding.path)!
      for (const [at, got] of [[finding.start_line ?? finding.line, placement.lines.start], [finding.line, placement.lines.end]] as const) {
        const line = map.lines.find((l) => (finding.side === 'RIGHT' ? l.new : l.old) === at)!
        const kind = { '+': 'added', '-': 'removed', ' ': 'context' }[line.kind]
        if (got.kind !== kind || (line.old !== undefined && got.old !== line.old) || (line.new !== undefined && got.new !== line.new)) {
          mismatches.push(`${IDS[i]}: line ${at} is ${JSON.stringify(got)}, the fixture says ${JSON.stringify(line)}`)
        }
      }
    })
    expect(mismatches, `seed ${random.seed}`).toEqual([])
    const rendered = renderReview(anchored)
    expectEachOnce(rendered)
    expectInsideHunks(rendered)
    expect(rendered.comments.length).toBeGreaterThan(50)
    // A comment carries its finding's suggestion as a committable block exactly when it is on the new side.
    for (const comment of rendered.comments) {
      const finding = REVIEW.findings[comment.finding]!
      expect(comment.body.includes('```suggestion'), IDS[comment.finding]).toBe(finding.suggestion !== undefined && finding.side === 'RIGHT')
    }
  })

  it('keeps every finding exactly once under the inline cap, the most severe inline', () => {
    const anchored = anchorReview(REVIEW, CORPUS_FILES)
    const rendered = renderReview(anchored)
    expectEachOnce(rendered)
    expectInsideHunks(rendered)
    expect(rendered.comments.length).toBe(anchored.maxInline)
    const rank = (i: number) => SEVERITY_LIST.indexOf(REVIEW.findings[i]!.severity)
    const leastSevereInline = Math.max(...rendered.comments.map((c) => rank(c.finding)))
    const capped = anchored.placements.flatMap((p, i) => (p.kind === 'folded' && p.reason === 'over_cap' ? [i] : []))
    expect(capped.length).toBeGreaterThan(0)
    for (const i of capped) expect(rank(i), IDS[i]).toBeGreaterThanOrEqual(leastSevereInline)
  })

  it('keeps every finding exactly once when the host refuses some comments and they are folded', () => {
    const anchored = anchorReview(REVIEW, CORPUS_FILES, { maxInline: REVIEW.findings.length })
    const inline = anchored.placements.flatMap((p, i) => (p.kind === 'inline' ? [i] : []))
    const refused = inline.filter(() => random.next() < 0.3)
    const rendered = renderReview(refold(anchored, refused))
    expectEachOnce(rendered)
    expectInsideHunks(rendered)
    expect(rendered.comments.map((c) => c.finding)).toEqual(inline.filter((i) => !refused.includes(i)))
    for (const i of refused) expect(rendered.folded).toContain(i)
  })
})
