/**
 * An array kept in order by binary search: an insert or a removal costs O(log n) comparisons and one copy of the
 * array's tail (a `memmove`, fast for the thousands a queue holds), never a sort, and a walk from the start
 * meets the items in order, so the first few are found without looking at the rest.
 */

/** The order of a {@link SortedArray}: negative when `a` goes before `b`, 0 for the same place. */
export type Order<T> = (a: T, b: T) => number

/** Where `item` goes in `items` (sorted by `order`): after every item that goes before it or in its place. */
function placeOf<T>(items: readonly T[], item: T, order: Order<T>): number {
  let low = 0
  let high = items.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (order(items[mid] as T, item) <= 0) low = mid + 1
    else high = mid
  }
  return low
}

/** Items in the order `order` gives, kept so by every change. */
export class SortedArray<T> {
  readonly #items: T[] = []
  readonly #order: Order<T>

  constructor(order: Order<T>) {
    this.#order = order
  }

  /** How many items it holds. */
  get size(): number {
    return this.#items.length
  }

  /** The items in order (the array itself: read it, never change it). */
  get items(): readonly T[] {
    return this.#items
  }

  /** The first item, or undefined when empty. */
  first(): T | undefined {
    return this.#items[0]
  }

  /** The last item, or undefined when empty. */
  last(): T | undefined {
    return this.#items.at(-1)
  }

  /** Adds `item` after the items in its place already. */
  add(item: T): void {
    this.#items.splice(placeOf(this.#items, item, this.#order), 0, item)
  }

  /**
   * Removes one item in `item`'s place that `same` accepts (by default the item itself); returns whether one was.
   * Only the items in that place are looked at.
   */
  delete(item: T, same: (held: T) => boolean = (held) => held === item): boolean {
    const items = this.#items
    for (let at = placeOf(items, item, this.#order) - 1; at >= 0 && this.#order(items[at] as T, item) === 0; at--) {
      if (!same(items[at] as T)) continue
      items.splice(at, 1)
      return true
    }
    return false
  }
}
