/**
 * One budget for the bytes held for request bodies not yet verified, across all requests at once. A body
 * under `max_body_bytes` is cheap alone, but 400 connections each sending most of 1 MB with a forged signature,
 * then waiting, held 400 MB before any signature was checked. Each request leases from the budget as its body
 * arrives and gives everything back when it is answered; a request that would pass the budget is answered 503
 * at once, and its body is not kept.
 */

/** The shared budget. */
export interface BodyBudget {
  /** The most bytes held at once (`max_unverified_bytes`). */
  readonly limit: number
  /** Bytes held now. */
  held(): number
  /** A lease for one request's body. */
  lease(): BodyLease
}

/** What one request holds of the budget. */
export interface BodyLease {
  /** Whether `bytes` more would fit now (a declared Content-Length, before reading). */
  fits(bytes: number): boolean
  /** Takes `bytes` more; false, taking nothing, when the budget cannot hold them. */
  take(bytes: number): boolean
  /** Gives back everything this lease took; again is harmless. */
  release(): void
}

/** Creates a budget of `limit` bytes. */
export function createBodyBudget(limit: number): BodyBudget {
  let held = 0
  return {
    limit,
    held: () => held,
    lease() {
      let mine = 0
      return {
        fits: (bytes) => held + bytes <= limit,
        take(bytes) {
          if (held + bytes > limit) return false
          held += bytes
          mine += bytes
          return true
        },
        release() {
          held -= mine
          mine = 0
        },
      }
    },
  }
}
