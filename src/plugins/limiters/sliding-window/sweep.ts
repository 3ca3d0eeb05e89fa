/**
 * Amortised expiry for maps kept in age order. Each request pays for a few entries at the front of the map
 * instead of an O(n) scan, and the front is where the oldest entries are because writers re-insert on update.
 */

/** How many front entries one call may inspect: enough to outpace insertion, small enough to stay O(1). */
const SWEEP_BUDGET = 4

/**
 * Deletes up to a few entries from the front of `map` whose value `isExpired` says is stale, stopping at the
 * first live one.
 */
export function sweepFront<K, V>(map: Map<K, V>, isExpired: (value: V) => boolean): void {
  let budget = SWEEP_BUDGET
  for (const [key, value] of map) {
    if (budget-- === 0 || !isExpired(value)) return
    map.delete(key)
  }
}
