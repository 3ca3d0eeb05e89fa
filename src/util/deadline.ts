/**
 * The one deadline on a promise that may never settle (a store that stopped answering without closing its
 * connection): the answer a caller must give in time (a health probe, a connection at start) comes from here.
 * Lives in `src/util/`, which imports nothing.
 */

/**
 * `promise`, or a rejection with `expired()` once `ms` have passed without it settling. The timer is cleared
 * when either comes first; a rejection of `promise` after the deadline is ignored.
 *
 * @example
 * await withDeadline(client.connect(), 5_000, () => new Error('no answer within 5 s'))
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, expired: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(expired()), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
