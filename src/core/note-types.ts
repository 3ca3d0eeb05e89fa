/**
 * The shape of a state backend's notes: small documents kept beside the jobs, changed by compare-and-set (see
 * jobs/lifecycle/notes.ts for the helpers and the rules). In the kernel because the state backend and the
 * delivery targets both name it.
 */
import type { JsonValue } from './context-types.js'

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

/** Where a state backend keeps notes. Keys are at most 512 characters, values at most 256 KiB of JSON. */
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

