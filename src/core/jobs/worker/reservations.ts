/**
 * De-dup as a state machine over the jobs: what a reservation of a key answers depends on the state of the job
 * that holds the key. A key reserved by a request still on its way to the store is held in this process, and a
 * second copy of that delivery waits for the first to settle, then decides from the store: it is a `duplicate`
 * only when the first one's job was stored (a first copy refused 429 or 503 stored nothing, and its copy must
 * not be told otherwise). The store's own unique key catches the rare race between processes.
 */
import type { Reservation } from '../lifecycle/state-backend.js'
import { decide, type KeyHolder } from '../lifecycle/transitions.js'

/** Reservations held by this process. */
export interface ReservationBook {
  /**
   * Reserves `key`: waits while another request of this process holds it, then decides from the job that
   * `lookup` finds (if any).
   */
  reserve(key: string, lookup: () => KeyHolder | undefined | Promise<KeyHolder | undefined>, windowMs: number, now: () => number): Promise<Reservation>
  /**
   * Gives the key of `reservation` back (its job was stored, or the request was refused), waking the copies that
   * wait for it. Settling twice, or after another request took the key since, changes nothing.
   */
  settle(reservation: Reservation): void
}

/** Creates an empty book. */
export function reservationBook(): ReservationBook {
  interface Hold {
    readonly settled: Promise<void>
    readonly wake: () => void
  }
  const pending = new Map<string, Hold>()
  const holds = new WeakMap<Reservation, Hold>()
  const settle = (reservation: Reservation) => {
    const hold = holds.get(reservation)
    if (!hold || pending.get(reservation.key) !== hold) return // already settled, or another request's hold now
    pending.delete(reservation.key)
    hold.wake()
  }
  return {
    async reserve(key, lookup, windowMs, now) {
      for (;;) {
        const held = pending.get(key)
        if (held) {
          await held.settled
          continue
        }
        const holder = await lookup()
        if (pending.has(key)) continue // another copy took the key while the store answered
        const status = decide(holder, windowMs, now())
        if (status === 'duplicate') return { status, key, jobId: holder?.id }
        let wake = () => {}
        const settled = new Promise<void>((resolve) => (wake = resolve))
        const hold: Hold = { settled, wake }
        pending.set(key, hold)
        const reservation: Reservation = status === 'redeliver' && holder
          ? { status, key, jobId: holder.id, release: () => settle(reservation) }
          : { status: 'new', key, release: () => settle(reservation) }
        holds.set(reservation, hold)
        return reservation
      }
    },
    settle,
  }
}
