/**
 * Notes: small documents the gateway keeps beside the jobs, in the same state store, so that every instance on a
 * shared store sees the same ones and they outlive a restart on a durable backend. What they hold is decided by
 * the features that write them: per route and pull request, the last reviewed head and its open findings, a
 * pause, a budget's spend. A note is changed by compare-and-set on its version, never by a blind write, so two
 * instances changing one note at once never lose a change ({@link updateNote} retries the loser).
 */
import { GatewayError } from '../../errors.js'
import type { JsonValue } from '../../types.js'
import type { NotePutOptions, NoteStore } from '../../note-types.js'

// The store's shape is the kernel's (a delivery target is given the notes too); it is exported here as well,
// beside the helpers, where backend authors and the backend kit have always found it.
export type { Note, NotePutOptions, NoteStore } from '../../note-types.js'

/** Longest key, in characters. */
export const MAX_NOTE_KEY = 512
/** Largest value, as JSON bytes: a note is a summary (findings are cut before they are noted), never a payload. */
export const MAX_NOTE_BYTES = 256 * 1024

/**
 * The checks every backend's `put` makes before writing, so that a caller's mistake reads the same everywhere:
 * returns the value's JSON text.
 */
export function checkedNote(key: string, value: JsonValue): string {
  if (key.length === 0 || key.length > MAX_NOTE_KEY) {
    throw new GatewayError('ERR_STATE', `a note's key must be 1 to ${MAX_NOTE_KEY} characters (got ${key.length})`)
  }
  const text = JSON.stringify(value)
  const bytes = Buffer.byteLength(text)
  if (bytes > MAX_NOTE_BYTES) {
    throw new GatewayError('ERR_STATE', `the note ${JSON.stringify(key.slice(0, 80))} is ${bytes} bytes of JSON; at most ${MAX_NOTE_BYTES} are kept (cut what it holds)`)
  }
  return text
}

/** What {@link updateNote}'s `change` decides: the note's new value (`null` removes it; omitted: write nothing) and a result. */
export interface NoteChange<T> {
  readonly value?: JsonValue | undefined
  readonly result: T
}

/** How many times {@link updateNote} reads again after losing a race before it gives up. */
const MAX_TRIES = 64

/**
 * Reads the note under `key`, lets `change` decide its new value from the current one, and writes it unless
 * another writer changed the note in between, in which case it reads and decides again. Resolves `change`'s result
 * of the write that won. Throws after {@link MAX_TRIES} lost races (a store with a writer that never stops).
 *
 * @example
 * ```ts
 * const spent = await updateNote(notes, 'budget/acme/2026-11-27', (now) => {
 *   const total = (typeof now === 'number' ? now : 0) + cost
 *   return { value: total, result: total }
 * }, { ttlMs: 2 * DAY })
 * ```
 */
export async function updateNote<T>(
  store: NoteStore,
  key: string,
  change: (current: JsonValue | undefined) => NoteChange<T>,
  options?: NotePutOptions,
): Promise<T> {
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const note = await store.get(key)
    const decided = change(note?.value)
    if (decided.value === undefined) return decided.result
    const version = await store.put(key, decided.value, note?.version ?? 0, options)
    if (version !== undefined) return decided.result
  }
  throw new GatewayError('ERR_STATE', `the note ${JSON.stringify(key.slice(0, 80))} kept changing under ${MAX_TRIES} writes in a row; nothing was written`)
}
