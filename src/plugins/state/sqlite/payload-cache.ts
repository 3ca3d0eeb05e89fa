/**
 * Payloads of the jobs this process stored and has not leased yet, as the pipeline parsed them. Nearly every
 * job is leased by the process that accepted it, moments later: handing it the object it already has skips
 * reading ~25 KB back from the file and parsing it again (about 50 µs a job). A job stored by another process,
 * recovered after a restart, or queued again is read from the table.
 */
import type { JsonObject } from '../../../core/types.js'

/** Parsed payloads by job id; an entry is put in the transaction that stores the job. */
export interface PayloadCache {
  put(id: number, payload: JsonObject): void
  /** The payload, removed: a job is leased once from here, later leases read the table. */
  take(id: number): JsonObject | undefined
  /** Forgets an id whose transaction did not commit (the id may be given to another job). */
  drop(id: number): void
}

/**
 * Holds at most `max` payloads. Jobs are leased oldest first, so when full it keeps what it has (the next jobs
 * to be leased) and takes no more: a deep queue reads its later payloads back, and the heap does not hold a
 * parsed payload (about 29 KB for a 25 KB body) for every job that waits.
 */
export function payloadCache(max: number): PayloadCache {
  const entries = new Map<number, JsonObject>()
  return {
    put(id, payload) {
      if (entries.size < max) entries.set(id, payload)
    },
    take(id) {
      const payload = entries.get(id)
      entries.delete(id)
      return payload
    },
    drop(id) {
      entries.delete(id)
    },
  }
}
