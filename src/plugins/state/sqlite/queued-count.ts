/**
 * How many jobs are queued, for `max_queue`. Counting them per add walks the index (24 µs at 1,000 queued,
 * 1 ms at 50,000), so the count is taken once and then kept in step by this process's own writes; it is taken
 * again whenever it may be wrong: after a write whose batch did not commit, after an operator's retry, and at
 * each housekeeping (`hookpilot jobs retry` in another process queues jobs too). Between two counts the bound
 * may be passed by what another process queued.
 */

/** The queued count; read and moved inside the transactions that change it. */
export interface QueuedCount {
  get(): number
  /** Moves the count by `n`, once the write that queued (or leased) the jobs has run. */
  add(n: number): void
  /** Counts again at the next read. */
  forget(): void
}

/** A count read from `count()` when not known. */
export function queuedCount(count: () => number): QueuedCount {
  let known: number | undefined
  return {
    get: () => (known ??= count()),
    add(n) {
      if (known !== undefined) known += n
    },
    forget() {
      known = undefined
    },
  }
}
