/**
 * The client's concurrency bound: at most `concurrency` functions running at once, the rest queued in order.
 *
 * It replaces p-limit on the call path because p-limit sends every call through its queue (three promises, a
 * bound function and two async frames) even when a slot is free, which is nearly always; here a free slot costs one
 * counter increment. Same contract: `limit(fn)` resolves or rejects as `fn()` does, and the slot is given back when
 * `fn()` settles, either way.
 */

/** Runs `fn` once a slot is free; a p-limit `LimitFunction` fits this type too. */
export type Limit = <R>(fn: () => Promise<R>) => Promise<R>

/** A bound of `concurrency` (a positive integer, checked by the caller) functions in flight. */
export function createLimit(concurrency: number): Limit {
  let active = 0
  // Resolvers of the calls waiting for a slot, oldest first. A fan-out queues at most a few hundred, so shift() is fine.
  const waiting: (() => void)[] = []
  const release = (): void => {
    const next = waiting.shift()
    // The slot goes straight to the next waiter: `active` stays the same, so no newcomer can take it in between.
    if (next === undefined) active--
    else next()
  }
  return async function limit<R>(fn: () => Promise<R>): Promise<R> {
    if (active < concurrency) active++
    else await new Promise<void>((resolve) => waiting.push(resolve))
    try {
      return await fn()
    } finally {
      release()
    }
  }
}
