/**
 * The text of an anchored review: comments with committable suggestions, folded findings in the body with their
 * reason, and a body that fits GitHub's 65,536 characters even for a document at every bound with every finding
 * folded, without a finding lost (each header whole) or hidden (an unclosed fence or HTML comment is closed).
 */
import { describe, expect, it } from 'vitest'
import { anchorReview } from '../../../src/core/review/anchor.js'
import type { ChangedFile } from '../../../src/core/review/diff-lines.js'
import type { Finding, ReviewDocument } from '../../../src/core/review/document.js'
import { FOLDED_HEADING, REVIEW_BODY_LIMIT, renderReview, size } from '../../../src/core/review/render.js'
import { REVIEW_LIMITS } from '../../../src/core/review/schema.js'

const files: ChangedFile[] = [{ filename: 'src/a.ts', status: 'modified', patch: '@@ -1,3 +1,4 @@\n one\n-two\n+2\n+2b\n three' }]
const base: Finding = { path: 'src/a.ts', line: 2, side: 'RIGHT', severity: 'major', body: 'Use a word.' }

function render(findings: Finding[], summary = 'Summary.', extra: Partial<ReviewDocument> = {}) {
  return renderReview(anchorReview({ summary, findings, ...extra }, files))
}

/** The lines of `text` outside fenced code blocks (a scanner of the test's own, CommonMark's rule simplified). */
function outsideFences(text: string): string[] {
  const out: string[] = []
  let open: string | undefined
  for (const line of text.split('\n')) {
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (open === undefined && fence !== undefined) open = fence
    else if (open !== undefined && fence !== undefined && fence[0] === open[0] && fence.length >= open.length && line.trim() === fence) open = undefined
    else if (open === undefined) out.push(line)
  }
  return out
}

describe('renderReview', () => {
  it('renders an inline finding as a comment with a committable suggestion block, the position GitHub wants', () => {
    const { body, comments, folded } = render([{ ...base, start_line: 2, line: 3, title: 'Naming', suggestion: 'two\ntwo b\n' }])
    expect(folded).toEqual([])
    expect(body).toBe('Summary.')
    expect(comments).toEqual([{
      path: 'src/a.ts', line: 3, side: 'RIGHT', start_line: 2, start_side: 'RIGHT', finding: 0,
      body: '**major** · Naming\n\nUse a word.\n\n```suggestion\ntwo\ntwo b\n```',
    }])
  })

  it('fences a suggestion holding backticks with a longer fence, and renders an empty one as a deletion', () => {
    const [withTicks, empty] = render([{ ...base, suggestion: 'const s = ```x```' }, { ...base, line: 3, suggestion: '' }]).comments
    expect(withTicks!.body).toContain('````suggestion\nconst s = ```x```\n````')
    expect(empty!.body.endsWith('```suggestion\n```')).toBe(true)
  })

  it('gives an old-side finding no suggestion block', () => {
    const [comment] = render([{ ...base, side: 'LEFT', line: 2 }]).comments
    expect(comment).toMatchObject({ side: 'LEFT', line: 2 })
    expect(comment!.body).not.toContain('suggestion')
  })

  it('folds into the body, under its heading, every finding not inline, saying where and why', () => {
    const { body, comments, folded } = render([
      { ...base, line: 40, title: 'Far away', suggestion: 'x' },
      base,
      { ...base, path: 'src/b.ts', start_line: 3, line: 5, side: 'RIGHT', severity: 'nit', body: 'Elsewhere.' },
    ], 'Summary.', { verdict: 'request_changes' })
    expect(comments.map((c) => c.finding)).toEqual([1])
    expect(folded).toEqual([0, 2])
    expect(body).toContain('**Verdict:** changes requested')
    expect(body).toContain(`${FOLDED_HEADING} (2)`)
    expect(body).toContain('**major** · Far away\n`src/a.ts`, line 40 (new file) · _not among the lines the diff shows on the new side_')
    expect(body).toContain('Suggested replacement:\n\n```\nx\n```')
    expect(body).toContain('**nit**\n`src/b.ts`, lines 3–5 (new file) · _the pull request does not change this file_\n\nElsewhere.')
    expect(body.indexOf('Far away')).toBeLessThan(body.indexOf('Elsewhere.'))
  })

  it('keeps what follows an unclosed fence or HTML comment in an agent\'s text visible', () => {
    const { body } = render([
      { ...base, line: 40, body: 'Look:\n```js\nopen(' },
      { ...base, line: 41, title: 'After the fence', body: 'Still visible.' },
    ], 'Summary <!-- never closed')
    const visible = outsideFences(body).join('\n')
    expect(visible).toContain('**major** · After the fence')
    expect(visible).toContain('Still visible.')
    expect(body).toContain('Summary &lt;!-- never closed')
  })

  it('fits GitHub\'s limit with a document at every bound, all folded: every header whole, bodies shortened', () => {
    const findings: Finding[] = Array.from({ length: REVIEW_LIMITS.findings }, (_, i) => ({
      path: `${'d/'.repeat(140)}file-${String(i).padStart(3, '0')}.ts`.slice(-REVIEW_LIMITS.path),
      line: REVIEW_LIMITS.line, start_line: 1, side: 'RIGHT', severity: 'critical',
      title: `T${i}:`.padEnd(REVIEW_LIMITS.title, 't'), body: 'b'.repeat(REVIEW_LIMITS.body), suggestion: 's'.repeat(REVIEW_LIMITS.suggestion),
    }))
    const summary = 'S'.repeat(REVIEW_LIMITS.summary)
    const { body, comments, folded } = render(findings, summary)
    expect(comments).toEqual([])
    expect(folded).toHaveLength(findings.length)
    expect(body.length).toBeLessThanOrEqual(REVIEW_BODY_LIMIT)
    expect(body.startsWith(summary)).toBe(true)
    for (const [i, f] of findings.entries()) expect(body.split(`· ${f.title}\n`).length - 1, `finding ${i}`).toBe(1)
    expect(body).toContain("Some findings' text is shortened")
  })

  it('fits the limit, counted in code points, with a document at every bound written in emoji, and cuts no pair in half', () => {
    const e = (n: number, tag: string) => `${tag}${'😀'.repeat(n - tag.length)}`
    const findings: Finding[] = Array.from({ length: REVIEW_LIMITS.findings }, (_, i) => ({
      path: e(REVIEW_LIMITS.path, `p${i}/`), line: 7, start_line: 3, side: 'LEFT', severity: 'nit',
      title: e(REVIEW_LIMITS.title, `T${i}:`), body: e(REVIEW_LIMITS.body, 'b'),
    }))
    const summary = e(REVIEW_LIMITS.summary, 'S')
    const { body } = render(findings, summary)
    expect(size(body)).toBeLessThanOrEqual(REVIEW_BODY_LIMIT)
    expect(body.startsWith(`${summary}\n`)).toBe(true)
    expect(body.length).toBeGreaterThan(REVIEW_BODY_LIMIT) // in UTF-16 units it is longer: the count matters
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(body)).toBe(false)
    for (const f of findings) expect(body.split(`· ${f.title}\n`).length - 1).toBe(1)
  })

  it('cuts an over-long plain-text answer (a summary-only review) to fit, saying so', () => {
    const { body } = render([], 'word '.repeat(20_000))
    expect(body.length).toBeLessThanOrEqual(REVIEW_BODY_LIMIT)
    expect(body.length).toBeGreaterThan(REVIEW_BODY_LIMIT - 100)
    expect(body.endsWith('\n… *(shortened to fit the review)*')).toBe(true)
  })

  it('says so when there is no summary', () => {
    expect(render([], '  ').body).toBe('_No summary._')
  })
})
