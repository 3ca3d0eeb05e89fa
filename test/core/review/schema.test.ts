/**
 * The review document has two schemas: the valibot one the gateway checks answers with and the JSON Schema it ships
 * for agents (schemas/review.schema.json, `hookpilot/review.schema.json`). Every sample here is run through both:
 * a valid one passes both, an invalid one fails both. Then `parseAnswer`: text stays text, a document is checked,
 * a broken document is an error with every issue's path.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import Ajv from 'ajv'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { anchorReview } from '../../../src/core/review/anchor.js'
import { parseAnswer } from '../../../src/core/review/document.js'
import { REVIEW_LIMITS, ReviewDocumentSchema } from '../../../src/core/review/schema.js'
import { CORPUS_FILES } from '../../fixtures/reviews/corpus-diff.js'

const schemaUrl = new URL('../../../schemas/review.schema.json', import.meta.url)
const jsonSchema = JSON.parse(readFileSync(schemaUrl, 'utf8')) as object
const ajvValidate = new Ajv({ allErrors: true }).compile(jsonSchema)

const finding = { path: 'src/app.ts', line: 12, severity: 'major', body: 'Off by one.' }
const many = (n: number): object[] => Array.from({ length: n }, (_, i) => ({ ...finding, line: i + 1 }))
const emoji = (n: number): string => '🙂'.repeat(n)

const valid: Record<string, unknown> = {
  'summary only, empty': { summary: '' },
  'summary and no findings': { summary: 'Fine.', findings: [] },
  'every field': {
    summary: '## Looks mostly fine', verdict: 'request_changes',
    findings: [{ path: 'src/a b/ünï.ts', line: 14, start_line: 12, side: 'RIGHT', severity: 'critical', title: 'Leak', body: 'The handle is never closed.', suggestion: 'close(h)\n' }],
  },
  'an old-side finding': { summary: 's', findings: [{ ...finding, side: 'LEFT', severity: 'nit' }] },
  'a suggestion that deletes the lines': { summary: 's', findings: [{ ...finding, suggestion: '' }] },
  'a range written backwards': { summary: 's', findings: [{ ...finding, start_line: 20 }] },
  'each verdict': { summary: 's', verdict: 'approve' },
  'verdict comment': { summary: 's', verdict: 'comment' },
  'a path with dots inside names': { summary: 's', findings: [{ ...finding, path: '.github/workflows/ci.yml' }] },
  'a path named ...': { summary: 's', findings: [{ ...finding, path: 'a/.../b..c' }] },
  'every bound reached': {
    summary: 'x'.repeat(REVIEW_LIMITS.summary),
    findings: [
      { path: 'p'.repeat(REVIEW_LIMITS.path), line: REVIEW_LIMITS.line, start_line: 1, severity: 'minor', title: 't'.repeat(REVIEW_LIMITS.title), body: 'b'.repeat(REVIEW_LIMITS.body), suggestion: 's'.repeat(REVIEW_LIMITS.suggestion) },
      ...many(REVIEW_LIMITS.findings - 1),
    ],
  },
  'a body of astral characters at the bound (counted as code points, as JSON Schema counts)': { summary: emoji(REVIEW_LIMITS.summary), findings: [{ ...finding, body: emoji(REVIEW_LIMITS.body) }] },
}

const invalid: Record<string, unknown> = {
  'not an object': ['summary'],
  'no summary': { findings: [] },
  'a summary that is not text': { summary: 3 },
  'a summary over the bound': { summary: 'x'.repeat(REVIEW_LIMITS.summary + 1) },
  'a summary of astral characters over the bound': { summary: emoji(REVIEW_LIMITS.summary + 1) },
  'an unknown key': { summary: 's', approve: true },
  'an unknown verdict': { summary: 's', verdict: 'reject' },
  'findings that are not a list': { summary: 's', findings: {} },
  'too many findings': { summary: 's', findings: many(REVIEW_LIMITS.findings + 1) },
  'a finding that is not an object': { summary: 's', findings: [null] },
  'a finding with an unknown key': { summary: 's', findings: [{ ...finding, position: 3 }] },
  'a finding without a body': { summary: 's', findings: [{ path: 'a', line: 1, severity: 'nit' }] },
  'a finding without a path': { summary: 's', findings: [{ line: 1, severity: 'nit', body: 'b' }] },
  'a finding without a line': { summary: 's', findings: [{ path: 'a', severity: 'nit', body: 'b' }] },
  'a finding without a severity': { summary: 's', findings: [{ path: 'a', line: 1, body: 'b' }] },
  'an empty path': { summary: 's', findings: [{ ...finding, path: '' }] },
  'an absolute path': { summary: 's', findings: [{ ...finding, path: '/etc/passwd' }] },
  'a path that climbs': { summary: 's', findings: [{ ...finding, path: 'src/../../secret' }] },
  'a path starting with ./': { summary: 's', findings: [{ ...finding, path: './src/a.ts' }] },
  'a path ending in /.': { summary: 's', findings: [{ ...finding, path: 'src/.' }] },
  'a path that is ..': { summary: 's', findings: [{ ...finding, path: '..' }] },
  'a path with a NUL': { summary: 's', findings: [{ ...finding, path: 'a\u0000b' }] },
  'a path with a newline': { summary: 's', findings: [{ ...finding, path: 'a\nb' }] },
  'a path over the bound': { summary: 's', findings: [{ ...finding, path: 'p'.repeat(REVIEW_LIMITS.path + 1) }] },
  'line 0': { summary: 's', findings: [{ ...finding, line: 0 }] },
  'a negative line': { summary: 's', findings: [{ ...finding, line: -3 }] },
  'a fractional line': { summary: 's', findings: [{ ...finding, line: 1.5 }] },
  'a line as text': { summary: 's', findings: [{ ...finding, line: '12' }] },
  'a line over the bound': { summary: 's', findings: [{ ...finding, line: REVIEW_LIMITS.line + 1 }] },
  'start_line 0': { summary: 's', findings: [{ ...finding, start_line: 0 }] },
  'an unknown side': { summary: 's', findings: [{ ...finding, side: 'BOTH' }] },
  'an unknown severity': { summary: 's', findings: [{ ...finding, severity: 'blocker' }] },
  'an empty body': { summary: 's', findings: [{ ...finding, body: '' }] },
  'a body over the bound': { summary: 's', findings: [{ ...finding, body: 'b'.repeat(REVIEW_LIMITS.body + 1) }] },
  'a body of astral characters over the bound': { summary: 's', findings: [{ ...finding, body: emoji(REVIEW_LIMITS.body + 1) }] },
  'an empty title': { summary: 's', findings: [{ ...finding, title: '' }] },
  'a title over the bound': { summary: 's', findings: [{ ...finding, title: 't'.repeat(REVIEW_LIMITS.title + 1) }] },
  'a suggestion over the bound': { summary: 's', findings: [{ ...finding, suggestion: 's'.repeat(REVIEW_LIMITS.suggestion + 1) }] },
  'a suggestion on the old side': { summary: 's', findings: [{ ...finding, side: 'LEFT', suggestion: 'x' }] },
}

describe('the review document: valibot schema and shipped JSON Schema agree', () => {
  it.each(Object.entries(valid))('%s: valid in both', (_name, sample) => {
    expect(ajvValidate(sample), JSON.stringify(ajvValidate.errors)).toBe(true)
    expect(v.safeParse(ReviewDocumentSchema, sample).issues).toBeUndefined()
  })

  it.each(Object.entries(invalid))('%s: refused by both', (_name, sample) => {
    expect(ajvValidate(sample)).toBe(false)
    expect(v.safeParse(ReviewDocumentSchema, sample).success).toBe(false)
  })

  it('writes the same bounds as REVIEW_LIMITS', () => {
    const text = readFileSync(schemaUrl, 'utf8')
    const schema = JSON.parse(text) as { properties: Record<string, { maxLength?: number, maxItems?: number }>, definitions: { line: { maximum: number }, finding: { properties: Record<string, { maxLength?: number }> } } }
    const f = schema.definitions.finding.properties
    expect({
      findings: schema.properties.findings!.maxItems, summary: schema.properties.summary!.maxLength,
      body: f.body!.maxLength, title: f.title!.maxLength, suggestion: f.suggestion!.maxLength, path: f.path!.maxLength,
      line: schema.definitions.line.maximum,
    }).toEqual({ ...REVIEW_LIMITS })
  })

  it('is what package.json exports as hookpilot/review.schema.json, and ships', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown>, files: string[] }
    expect(pkg.exports['./review.schema.json']).toBe('./schemas/review.schema.json')
    expect(pkg.files).toContain('schemas')
    // Resolved as a user resolves it (the package referring to itself by name, through its exports map).
    expect(createRequire(import.meta.url).resolve('hookpilot/review.schema.json')).toBe(fileURLToPath(schemaUrl))
  })
})

describe('parseAnswer', () => {
  it('keeps a plain-text answer as a summary-only review, word for word', () => {
    const text = 'Looks fine.\n\n- one nit: `{x}` is unused\n'
    expect(parseAnswer(text)).toEqual({ ok: true, form: 'text', review: { summary: text, findings: [] } })
  })

  it('keeps a text answer that quotes JSON in a ```json block (not a review document) as text', () => {
    const text = 'The new config:\n\n```json\n{ "port": 8080 }\n```\n\nlooks right.'
    expect(parseAnswer(text)).toMatchObject({ ok: true, form: 'text' })
  })

  it('reads a JSON object answer, filling the side and turning a backwards range round', () => {
    const answer = JSON.stringify({ summary: 'S', verdict: 'comment', findings: [{ path: 'a.ts', line: 3, start_line: 7, severity: 'nit', body: 'b' }] })
    expect(parseAnswer(`  ${answer}\n`)).toEqual({
      ok: true, form: 'document',
      review: { summary: 'S', verdict: 'comment', findings: [{ path: 'a.ts', line: 7, start_line: 3, side: 'RIGHT', severity: 'nit', body: 'b' }] },
    })
  })

  it('reads a document in a single ```json block, prose around it dropped', () => {
    const answer = 'Here is my review:\n\n```json\n{"summary": "S", "findings": [{"path": "a.ts", "line": 1, "side": "LEFT", "severity": "minor", "body": "b"}]}\n```\n'
    const parsed = parseAnswer(answer)
    expect(parsed).toEqual({ ok: true, form: 'document', review: { summary: 'S', findings: [{ path: 'a.ts', line: 1, side: 'LEFT', severity: 'minor', body: 'b' }] } })
  })

  it('lists every problem of a document that does not validate, each with its path', () => {
    const parsed = parseAnswer(JSON.stringify({
      summary: 'S', extra: 1,
      findings: [
        { path: 'a.ts', line: 1, severity: 'major', body: 'ok' },
        { path: '/abs', line: 0, severity: 'blocker', body: 'b' },
        { path: 'b.ts', line: 2, side: 'LEFT', severity: 'nit', body: 'b', suggestion: 'x' },
      ],
    }))
    expect(parsed.ok).toBe(false)
    if (parsed.ok) return
    const paths = parsed.issues.map((i) => i.path)
    expect(paths).toEqual(expect.arrayContaining(['extra', 'findings[1].path', 'findings[1].line', 'findings[1].severity', 'findings[2].side']))
    expect(paths).not.toContain('findings[0].path')
    for (const issue of parsed.issues) expect(issue.message.length).toBeGreaterThan(0)
  })

  it('refuses a JSON answer that does not parse, and one that is not a document object', () => {
    const broken = parseAnswer('{"summary": "S", "findings": [}')
    expect(broken).toMatchObject({ ok: false, issues: [{ path: '', message: expect.stringContaining('not valid JSON') as unknown }] })
    expect(parseAnswer('{"verdict": "comment"}')).toMatchObject({ ok: false, issues: [{ path: 'summary' }] })
  })

  it('refuses a ```json block meant as a document that is broken JSON, and two documents in one answer', () => {
    expect(parseAnswer('Review:\n```json\n{"summary": "S", "findings": [,]}\n```')).toMatchObject({ ok: false })
    const two = '```json\n{"summary": "A"}\n```\n\n```json\n{"summary": "B"}\n```'
    expect(parseAnswer(two)).toMatchObject({ ok: false, issues: [{ path: '', message: expect.stringContaining('2 review documents') as unknown }] })
  })
})

describe("docs/reviews.md's example document", () => {
  const doc = readFileSync(new URL('../../../docs/reviews.md', import.meta.url), 'utf8')
  const section = doc.slice(doc.indexOf('## Findings'))
  const example = /```json\n([\s\S]*?)\n```/.exec(section)?.[1] ?? ''

  it('is valid in both schemas, and both of its findings go inline on the corpus diff it names', () => {
    const value: unknown = JSON.parse(example)
    expect(ajvValidate(value)).toBe(true)
    const parsed = parseAnswer(example)
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    const { placements } = anchorReview(parsed.review, CORPUS_FILES)
    expect(placements.map((p) => (p.kind === 'inline' ? { kind: p.kind, position: p.position } : p))).toEqual([
      { kind: 'inline', position: { path: 'src/server/router.ts', line: 28, side: 'RIGHT' } },
      { kind: 'inline', position: { path: 'src/server/router.ts', line: 30, side: 'LEFT', start_line: 29, start_side: 'LEFT' } },
    ])
  })
})
