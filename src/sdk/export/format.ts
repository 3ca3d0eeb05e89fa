/** The export formats: JSON lines, or CSV with a header whose numbers are bare and whose text is quoted. */
import type { Row } from './walk.js'

/** `jsonl`: one JSON object a line. `csv`: RFC 4180, a header line, numbers unquoted, every text quoted. */
export type ExportFormat = 'jsonl' | 'csv'

export const EXPORT_FORMATS: readonly ExportFormat[] = ['jsonl', 'csv']

/** The header, or `''` for a format without one. */
export function header(format: ExportFormat, columns: readonly string[]): string {
  return format === 'csv' ? `${columns.join(',')}\r\n` : ''
}

/** Rows as text in `format`, each ending with its newline. */
export function encode(format: ExportFormat, columns: readonly string[], rows: readonly Row[]): string {
  let out = ''
  for (const row of rows) {
    if (format === 'jsonl') {
      out += `${JSON.stringify(row)}\n`
    } else {
      out += `${columns.map((c) => cell(row[c])).join(',')}\r\n`
    }
  }
  return out
}

// Text is always quoted, so a token id (digits only) stays text in a spreadsheet instead of losing digits as a number.
function cell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  return `"${value.replaceAll('"', '""')}"`
}
