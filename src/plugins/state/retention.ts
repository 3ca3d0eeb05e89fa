/** The retention keys every durable state backend takes beside `driver`, with their defaults. */
import * as v from 'valibot'
import { integer } from '../../core/config/schema-kit.js'

/** `keep_done_hours` (at least the one-hour de-dup window is kept anyway) and `keep_failed_days`. */
export const retentionOptions = {
  keep_done_hours: v.optional(integer(1), 24),
  keep_failed_days: v.optional(integer(1), 7),
}

/** The retention in milliseconds. */
export function retentionMs(options: { readonly keep_done_hours: number; readonly keep_failed_days: number }) {
  return { keepDoneMs: options.keep_done_hours * 3_600_000, keepFailedMs: options.keep_failed_days * 86_400_000 }
}
