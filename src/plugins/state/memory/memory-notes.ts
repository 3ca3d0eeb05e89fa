/** The memory backend's notes: a Map of value, version and expiry, read through the backend's clock. */
import { checkedNote, type NoteStore } from '../../../core/jobs/lifecycle/notes.js'
import type { Clock, JsonValue } from '../../../core/types.js'

interface Kept {
  readonly value: JsonValue
  readonly version: number
  readonly expiresAt: number | undefined
}

/** Creates an empty note store; `now` decides expiry. */
export function memoryNotes(now: Clock): NoteStore {
  const notes = new Map<string, Kept>()
  const live = (key: string): Kept | undefined => {
    const kept = notes.get(key)
    if (kept?.expiresAt !== undefined && kept.expiresAt <= now()) {
      notes.delete(key)
      return undefined
    }
    return kept
  }
  return {
    get(key) {
      const kept = live(key)
      return Promise.resolve(kept === undefined ? undefined : { value: kept.value, version: kept.version })
    },
    put(key, value, expected, options) {
      // A copy through JSON: what is stored is what a durable backend would give back, never the caller's object.
      let text: string
      try {
        text = checkedNote(key, value)
      } catch (error) {
        return Promise.reject(error)
      }
      const version = live(key)?.version ?? 0
      if (version !== expected) return Promise.resolve(undefined)
      if (value === null) notes.delete(key)
      else notes.set(key, { value: JSON.parse(text) as JsonValue, version: version + 1, expiresAt: options?.ttlMs === undefined ? undefined : now() + options.ttlMs })
      return Promise.resolve(version + 1)
    },
  }
}
