/**
 * The review document an agent's answer becomes, whatever the code host: a summary, an optional verdict and
 * findings anchored to lines. `parseAnswer` reads an answer: plain text stays a summary-only review (so every
 * config written before findings keeps working), a document is checked against the schema, and an answer meant
 * as a document that does not validate is an error value listing every problem (the run fails with them, and the
 * text is never posted as it is: half a document in a pull request helps nobody).
 */
import * as v from 'valibot'
import { ReviewDocumentSchema, type FindingInput, type SEVERITIES, type SIDES, type VERDICTS } from './schema.js'

/** How bad a finding is; `critical` is the worst. */
export type Severity = (typeof SEVERITIES)[number]

/** The side of the diff a finding's lines are on: `RIGHT` the new file, `LEFT` the old one. */
export type Side = (typeof SIDES)[number]

/** The agent's opinion of the change (shown, never acted on as an approval). */
export type Verdict = (typeof VERDICTS)[number]

/** One finding, its side filled in. */
export interface Finding {
  /** The file, as the pull request names it now (for a renamed file its previous name is accepted too). */
  readonly path: string
  /** The line, or the last line of a range. */
  readonly line: number
  /** The first line of a range; at most `line` (a range written backwards is turned round). */
  readonly start_line?: number
  /** The side `line` and `start_line` count on (default `RIGHT`). */
  readonly side: Side
  readonly severity: Severity
  /** A short title, shown before the body. */
  readonly title?: string
  /** What is wrong (Markdown). */
  readonly body: string
  /** Replacement text for the lines (`start_line`..`line`, or `line`) of the new file; empty deletes them. */
  readonly suggestion?: string
}

/** A review: what the gateway posts, once anchored. */
export interface ReviewDocument {
  /** Markdown; the review's body starts with it. */
  readonly summary: string
  readonly verdict?: Verdict
  readonly findings: readonly Finding[]
}

/** One reason a document was refused: where (`findings[2].line`, or `''` for the whole answer) and what. */
export interface DocumentIssue {
  readonly path: string
  readonly message: string
}

/** What reading an answer gave. */
export type ParsedAnswer =
  /** `form`: whether the answer was plain text (a summary-only review) or a document. */
  | { readonly ok: true, readonly form: 'text' | 'document', readonly review: ReviewDocument }
  /** The answer was meant as a document and is not a valid one: every problem, each with its path. */
  | { readonly ok: false, readonly issues: readonly DocumentIssue[] }

/** A ```json (or ```JSON) fenced block, its content captured; fences of three or more backticks or tildes. */
const JSON_FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*json[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*\1[ \t]*$/gim

/** Keys that mark an object as a review document rather than a JSON sample quoted in a text review. */
const DOCUMENT_KEY = /"(?:summary|findings)"\s*:/

/**
 * Reads an agent's answer.
 *
 * - A JSON object (the trimmed answer starts with `{` and ends with `}`) is meant as a document.
 * - So is the content of a ```json fenced block whose object has `summary` or `findings` (agents wrap JSON in a
 *   fence, prose around it is dropped). Two such blocks are refused: which one is the review is not ours to guess.
 * - Anything else is plain text: a review whose summary is the whole answer and which has no findings.
 */
export function parseAnswer(text: string): ParsedAnswer {
  const trimmed = text.trim()
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) return parseDocument(trimmed)
  const blocks = [...trimmed.matchAll(JSON_FENCE)].map((m) => m[2] ?? '').filter(looksLikeDocument)
  if (blocks.length > 1) {
    return { ok: false, issues: [{ path: '', message: `the answer holds ${blocks.length} review documents in \`\`\`json blocks; answer with one` }] }
  }
  if (blocks.length === 1) return parseDocument(blocks[0]!.trim())
  return { ok: true, form: 'text', review: { summary: text, findings: [] } }
}

/** Checks a value against the schema: the document, or every issue with its path. */
export function validateDocument(value: unknown): ParsedAnswer {
  const result = v.safeParse(ReviewDocumentSchema, value)
  if (!result.success) return { ok: false, issues: result.issues.map(issueOf) }
  const { summary, verdict, findings = [] } = result.output
  return {
    ok: true,
    form: 'document',
    review: {
      summary,
      ...(verdict === undefined ? {} : { verdict }),
      findings: findings.map(findingOf),
    },
  }
}

/** A checked finding with its side filled in, absent fields left out (not `undefined`). */
function findingOf(input: FindingInput): Finding {
  const { path, side = 'RIGHT', severity, title, body, suggestion } = input
  // A range written backwards (start_line after line) means the same lines.
  const first = Math.min(input.start_line ?? input.line, input.line)
  const line = Math.max(input.start_line ?? input.line, input.line)
  return {
    path, line, side, severity, body,
    ...(input.start_line === undefined ? {} : { start_line: first }),
    ...(title === undefined ? {} : { title }),
    ...(suggestion === undefined ? {} : { suggestion }),
  }
}

function parseDocument(json: string): ParsedAnswer {
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (error) {
    return { ok: false, issues: [{ path: '', message: `the review document is not valid JSON: ${(error as Error).message}` }] }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, issues: [{ path: '', message: 'the review document must be a JSON object' }] }
  }
  return validateDocument(value)
}

/** A fenced block is a document when its object names `summary` or `findings` (read even when it is broken JSON). */
function looksLikeDocument(content: string): boolean {
  const trimmed = content.trim()
  if (!trimmed.startsWith('{')) return false
  try {
    const value: unknown = JSON.parse(trimmed)
    return typeof value === 'object' && value !== null && !Array.isArray(value) && ('summary' in value || 'findings' in value)
  } catch {
    return DOCUMENT_KEY.test(trimmed)
  }
}

/** `findings[2].line`, from valibot's path; the message says what was expected. */
function issueOf(issue: v.BaseIssue<unknown>): DocumentIssue {
  let path = ''
  for (const item of issue.path ?? []) {
    const key: unknown = item.key
    path += typeof key === 'number' ? `[${key}]` : `${path === '' ? '' : '.'}${String(key)}`
  }
  return { path, message: issue.message }
}
