/**
 * De-dup as a state machine over the jobs: what a reservation of a key answers depends on the state of the job
 * that holds the key. Keys reserved by requests still on their way to the store are held in this process, so
 * N concurrent copies of one delivery give one `new` without a round trip to the store; the store's own unique
 * key catches the rare race between processes.
 */
import type { JobState, Reservation } from './jobs.js'

/** The job that holds a key, as the store knows it. */
export interface KeyHolder {
  readonly id: string
  readonly state: JobState
  readonly finishedAt: number | undefined
}

/** Reservations held by this process. */
export interface ReservationBook {
  /** Decides a reservation of `key` given the job that holds it (if any). */
  reserve(key: string, holder: KeyHolder | undefined, windowMs: number, now: number): Reservation
  /** Whether `key` is held by a request of this process. */
  held(key: string): boolean
  /** Gives `key` back (the job was stored, or the request was refused). */
  settle(key: string): void
}

/** Creates an empty book. */
export function reservationBook(): ReservationBook {
  const pending = new Set<string>()
  const release = (key: string) => () => void pending.delete(key)
  return {
    reserve(key, holder, windowMs, now) {
      if (pending.has(key)) return { status: 'duplicate', key, jobId: undefined }
      const status = decide(holder, windowMs, now)
      if (status === 'duplicate') return { status, key, jobId: holder?.id }
      pending.add(key)
      if (status === 'redeliver' && holder) return { status, key, jobId: holder.id, release: release(key) }
      return { status: 'new', key, release: release(key) }
    },
    held: (key) => pending.has(key),
    settle: (key) => void pending.delete(key),
  }
}

/**
 * A failed job's key is given back to a redelivery (it re-queues that job); a queued or running job's is not;
 * a done job's is held for `windowMs` after it finished, then a redelivery is a new job.
 */
export function decide(holder: KeyHolder | undefined, windowMs: number, now: number): Reservation['status'] {
  if (!holder) return 'new'
  switch (holder.state) {
    case 'failed':
      return 'redeliver'
    case 'done':
      return (holder.finishedAt ?? now) + windowMs > now ? 'duplicate' : 'new'
    default:
      return 'duplicate'
  }
}
