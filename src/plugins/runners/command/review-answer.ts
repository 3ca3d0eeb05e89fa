/**
 * A review-mode answer of an agent CLI, as the delivery reads it: agent CLIs asked for structured output wrap it
 * or shape it their own way. Claude Code's `claude -p --output-format json` prints an envelope (`{"type":
 * "result", "result": "<text>", "structured_output": {...}, ...}`): the document is its `structured_output` (with
 * `--json-schema`) or else its `result` text. A strict structured output (`codex exec --output-schema` with the
 * strict schema, hookpilot/review.output-schema.json) writes null for the keys it leaves empty: they are left out.
 * Any other text is returned as it is.
 */
import { fromStructuredOutput } from '../../../core/review/structured-output.js'

/** The answer `stdout` stands for, when the route wants a review document. */
export function reviewAnswer(stdout: string): string {
  const trimmed = stdout.trim()
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return stdout
  let value: unknown
  try {
    value = JSON.parse(trimmed)
  } catch {
    return stdout
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return stdout
  const envelope = value as Record<string, unknown>
  if (envelope['type'] === 'result' && ('structured_output' in envelope || 'result' in envelope)) {
    const inner = envelope['structured_output']
    if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) return fromStructuredOutput(JSON.stringify(inner))
    return typeof envelope['result'] === 'string' ? reviewAnswer(envelope['result']) : stdout
  }
  return fromStructuredOutput(trimmed)
}
