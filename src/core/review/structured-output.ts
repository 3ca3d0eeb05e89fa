/**
 * The review document as a model's structured output (OpenAI's `response_format: { type: 'json_schema', strict:
 * true }`, which OpenAI-compatible servers copy). Strict mode takes a subset of JSON Schema: every property must
 * be listed in `required` and `additionalProperties` must be false, so an optional key is written as required and
 * nullable; `if`/`then` and most bounds are not taken. This schema is the shipped one (schemas/review.schema.json)
 * within that subset; the bounds it cannot say are in its descriptions, and the answer is still checked against
 * the full schema when it is delivered (a document that breaks a bound fails the run with the issues).
 */
import { REVIEW_LIMITS, SEVERITIES, SIDES, VERDICTS } from './schema.js'

/** The `json_schema.name` the schema is sent under (letters, digits, `_` and `-`, at most 64). */
export const REVIEW_OUTPUT_NAME = 'hookpilot_review'

/** A strict structured output cannot leave a key out: it says null. */
const nullable = (type: string) => [type, 'null']

const finding = {
  type: 'object',
  additionalProperties: false,
  required: ['path', 'line', 'start_line', 'side', 'severity', 'title', 'body', 'suggestion'],
  properties: {
    path: { type: 'string', description: `The file's path in the repository after the change, relative, at most ${REVIEW_LIMITS.path} characters.` },
    line: { type: 'integer', description: 'The line, or the last line of a range, counted on `side` (from 1).' },
    start_line: { type: nullable('integer'), description: 'The first line of a range on `side`; null for one line.' },
    side: { type: nullable('string'), enum: [...SIDES, null], description: 'RIGHT: the new file (null means RIGHT); LEFT: the old file (lines the change removed).' },
    severity: { type: 'string', enum: [...SEVERITIES] },
    title: { type: nullable('string'), description: `A short title, at most ${REVIEW_LIMITS.title} characters; or null.` },
    body: { type: 'string', description: `What is wrong and why, in Markdown, at most ${REVIEW_LIMITS.body} characters.` },
    suggestion: { type: nullable('string'), description: 'Replacement text for the lines start_line..line of the new file (RIGHT side only; empty deletes them); or null.' },
  },
} as const

/**
 * The strict structured-output form of the review document: what a runner sends as `json_schema.schema`.
 *
 * @example
 * ```ts
 * const body = { model, messages, response_format: { type: 'json_schema', json_schema: { name: REVIEW_OUTPUT_NAME, schema: REVIEW_OUTPUT_SCHEMA, strict: true } } }
 * ```
 */
export const REVIEW_OUTPUT_SCHEMA = Object.freeze({
  type: 'object',
  additionalProperties: false,
  required: ['summary', 'verdict', 'findings'],
  properties: {
    summary: { type: 'string', description: `The review's summary, in Markdown, at most ${REVIEW_LIMITS.summary} characters.` },
    verdict: { type: nullable('string'), enum: [...VERDICTS, null], description: 'What you think of the change, or null. The gateway never approves.' },
    findings: { type: 'array', items: finding, description: `At most ${REVIEW_LIMITS.findings} findings, each anchored to lines of the pull request's diff; [] for none.` },
  },
})

/**
 * A structured output as the review document the gateway reads: the nulls strict mode wrote for the keys it could
 * not leave out are left out again. Text that is not a JSON object (a server that ignored the schema and answered
 * prose) is returned as it is: the delivery reads it as any answer.
 */
export function fromStructuredOutput(text: string): string {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return text
  }
  if (!isObject(value)) return text
  const listed: unknown = value['findings']
  const findings: unknown = Array.isArray(listed) ? listed.map((f: unknown) => (isObject(f) ? withoutNulls(f) : f)) : listed
  return JSON.stringify({ ...withoutNulls(value), ...(findings === undefined || findings === null ? {} : { findings }) })
}

function withoutNulls(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== null))
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
