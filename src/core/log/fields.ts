/**
 * Log fields rewritten string by string (redacted, escaped): most lines need no change, so the fields object is
 * copied only when a value changes.
 */
import type { LogFields } from '../types.js'

/** `fields` with `change` applied to every string value; the same object when nothing changed. */
export function mapStringFields(fields: LogFields, change: (text: string) => string): LogFields {
  let copy: Record<string, string | number | boolean | undefined> | undefined
  for (const key of Object.keys(fields)) {
    const value = fields[key]
    if (typeof value !== 'string') continue
    const changed = change(value)
    if (changed === value) continue
    copy ??= { ...fields }
    copy[key] = changed
  }
  return copy ?? fields
}
