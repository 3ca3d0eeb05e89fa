/**
 * Notes: small documents the gateway keeps beside the jobs, in the same state store, so that every instance on a
 * shared store sees the same ones and they outlive a restart on a durable backend. What they hold is decided by
 * the features that write them: per route and pull request, the last reviewed head and its open findings, a
 * pause, a budget's spend. A note is changed by compare-and-set on its version, never by a blind write, so two
 * instances changing one note at once never lose a change ({@link updateNote} retries the loser).
 */
import { GatewayError } from '../../errors.js'
import type { JsonValue } from '../../types.js'

/** A note as stored: its value and the version a write must name to replace it. */
export interface Note {
  readonly value: JsonValue
  /** 1 after the first write, one more after each; a missing note is version 0. */
  readonly version: number
}

/** Options of {@link NoteStore.put}. */
export interface NotePutOptions {
  /** Forget the note this long after this write (a budget's day, a paused pull request's month); kept forever otherwise. */
  readonly ttlMs?: number | undefined
}

/** Where a state backend keeps notes. Keys are at most {@link MAX_NOTE_KEY} characters, values at most {@link MAX_NOTE_BYTES}. */
export interface NoteStore {
  /** The note under `key`, or undefined when there is none (or it expired). */
  get(key: string): Promise<Note | undefined>
  /**
   * Writes `value` under `key` if the note's version is still `expected` (0: there is no note yet), atomically
   * with respect to every other writer of the store. Resolves the new version, or `undefined` when another
   * writer changed the note first (read it again and decide again). `null` as value removes the note.
   */
  put(key: string, value: JsonValue, expected: number, options?: NotePutOptions): Promise<number | undefined>
}

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
