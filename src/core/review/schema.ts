/**
 * The review document's valibot schema: what an agent may answer instead of plain text. Every field an agent (or a
 * sender whose payload reached the prompt) controls is bounded, so a document can never make the gateway post more
 * than a code host accepts or hold more than a job's record should. `schemas/review.schema.json` is the same
 * contract as JSON Schema, for agents and their tools; test/core/review/schema.test.ts keeps the two equal.
 */
import * as v from 'valibot'

/** The severities, most severe first: the order the inline cap keeps. */
export const SEVERITIES = Object.freeze(['critical', 'major', 'minor', 'nit'] as const)

/** The sides of a diff: `RIGHT` the new file (the head), `LEFT` the old one (the base). GitHub's words. */
export const SIDES = Object.freeze(['RIGHT', 'LEFT'] as const)

/**
 * What the agent thinks of the change. Advice only: it is shown in the review's body, and the gateway never
 * approves (the event it posts is the route's decision).
 */
export const VERDICTS = Object.freeze(['approve', 'comment', 'request_changes'] as const)

/**
 * The bounds. Chosen so that a document at every bound, all of its findings folded into the body, still fits
 * GitHub's 65,536 characters once the folded bodies are shortened (test/core/review/render.test.ts builds one).
 */
export const REVIEW_LIMITS = Object.freeze({
  /** Findings in one document. */
  findings: 100,
  /** Characters of the summary (Markdown). */
  summary: 12_000,
  /** Characters of a finding's body (Markdown). */
  body: 4_000,
  /** Characters of a finding's title. */
  title: 120,
  /** Characters of a suggestion (the replacement lines). */
  suggestion: 4_000,
  /** Characters of a path. */
  path: 300,
  /** The largest line number (a file of a million lines is not reviewed line by line). */
  line: 1_000_000,
})

/**
 * A path as the pull request names it: relative, `/`-separated, no control characters, no `.`/`..` segment. The
 * same pattern is the JSON Schema's (`PATH_PATTERN.source`), so both read a path alike.
 */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point of this class
export const PATH_PATTERN = /^(?!\/)(?!.*(?:^|\/)\.{1,2}(?:\/|$))[^\u0000-\u001f\u007f]+$/u

const lineNumber = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(REVIEW_LIMITS.line))

/**
 * At most `max` characters, counted as JSON Schema's `maxLength` counts them (code points, so an emoji is one), not
 * as JavaScript's `length` does: both schemas refuse the same strings.
 */
function text(min: number, max: number) {
  return v.pipe(
    v.string(),
    v.check((s) => codePoints(s) >= min, `at least ${min} character${min === 1 ? '' : 's'}`),
    v.check((s) => codePoints(s) <= max, `at most ${max} characters`),
  )
}

function codePoints(s: string): number {
  let count = 0
  for (const _ of s) count++
  return count
}

/** One finding, as the agent writes it. */
export const FindingSchema = v.pipe(
  v.strictObject({
    path: v.pipe(text(1, REVIEW_LIMITS.path), v.regex(PATH_PATTERN, 'a path relative to the repository, without "." or ".." segments')),
    line: lineNumber,
    start_line: v.optional(lineNumber),
    side: v.optional(v.picklist(SIDES)),
    severity: v.picklist(SEVERITIES),
    title: v.optional(text(1, REVIEW_LIMITS.title)),
    body: text(1, REVIEW_LIMITS.body),
    suggestion: v.optional(text(0, REVIEW_LIMITS.suggestion)),
  }),
  // No check that start_line <= line: JSON Schema cannot compare two fields, and a range written backwards has
  // one meaning (the document reads it forwards).
  v.forward(
    v.partialCheck([['suggestion'], ['side']], (f) => f.suggestion === undefined || (f.side ?? 'RIGHT') === 'RIGHT', 'a suggestion replaces lines of the new file: side must be RIGHT'),
    ['side'],
  ),
)

/** The review document. */
export const ReviewDocumentSchema = v.strictObject({
  summary: text(0, REVIEW_LIMITS.summary),
  verdict: v.optional(v.picklist(VERDICTS)),
  findings: v.optional(v.pipe(v.array(FindingSchema), v.maxLength(REVIEW_LIMITS.findings))),
})

/** A finding as the schema reads it (`side` may be left out). */
export type FindingInput = v.InferOutput<typeof FindingSchema>

/** A review document as the schema reads it. */
export type ReviewDocumentInput = v.InferOutput<typeof ReviewDocumentSchema>
