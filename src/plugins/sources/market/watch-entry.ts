/**
 * A watch added at run time (`hookpilot subscribe --market`, kept under `watches` of the subscription store),
 * checked with the same schema as a watch of config.yaml. A bad entry is only that entry's problem: it is set
 * aside with a reason that names the key to change, and the other watches run.
 */
import * as v from 'valibot'
import { describeIssues, isPlainObject } from '../../../core/routes/subscriptions/schema.js'
import { watchName, watchSchema, type WatchConfig } from './options.js'

/** A checked entry: the watch, or why it cannot run. */
export type WatchEntry = { readonly ok: true; readonly value: WatchConfig } | { readonly ok: false; readonly reason: string }

/** Checks one entry of the store's `watches` and its name. */
export function parseWatchEntry(name: string, raw: unknown): WatchEntry {
  const named = v.safeParse(watchName, name)
  if (!named.success) return { ok: false, reason: describeIssues(named.issues) }
  if (!isPlainObject(raw)) return { ok: false, reason: 'expected an object of watch keys (market, when, deliver, ...)' }
  // `created_at` is the store's note of when it was added, not a key of the watch.
  const { created_at: _added, ...watch } = raw
  const parsed = v.safeParse(watchSchema, watch)
  return parsed.success ? { ok: true, value: parsed.output } : { ok: false, reason: describeIssues(parsed.issues) }
}
