/**
 * A local order book kept from a snapshot and `price_change` deltas. Levels stay sorted best first (bids
 * descending, asks ascending) by binary search on insert, so a change costs O(log n) to find and one array copy,
 * never a sort. Arrays are copied on write: a snapshot handed to the reader never changes under it.
 */
import type { Level, Side } from '../clob/model.js'
import type { BookEvent } from './events.js'

/** A token's book as kept locally from the market channel. */
export interface LiveBook {
  readonly tokenId: string
  /** Condition id of the market. */
  readonly market: string
  /** Best first: highest price first. */
  readonly bids: readonly Level[]
  /** Best first: lowest price first. */
  readonly asks: readonly Level[]
  readonly tickSize: number | null
  readonly minOrderSize: number | null
  readonly negRisk: boolean
  /** Time of the last snapshot or change applied. */
  readonly timestamp: Date | null
}

/** The mutable book behind {@link LiveBook} snapshots. */
export class LocalBook {
  readonly tokenId: string
  #book: LiveBook

  constructor(book: LiveBook) {
    this.tokenId = book.tokenId
    this.#book = book
  }

  /** A book from a `book` snapshot (its levels are already sorted best first). */
  static fromSnapshot(e: BookEvent): LocalBook {
    return new LocalBook(liveBook(e, e.bids, e.asks, e.tickSize, e.timestamp))
  }

  /** The current state; an immutable value. */
  get book(): LiveBook {
    return this.#book
  }

  /** Sets the size at `price` on the bids (`buy`) or asks (`sell`); size 0 removes the level. */
  set(side: Side, price: number, size: number, timestamp: Date | null): void {
    const b = this.#book
    const at = timestamp ?? b.timestamp
    this.#book =
      side === 'buy'
        ? liveBook(b, setLevel(b.bids, price, size, true), b.asks, b.tickSize, at)
        : liveBook(b, b.bids, setLevel(b.asks, price, size, false), b.tickSize, at)
  }

  /** Changes the tick size. */
  setTick(tickSize: number, timestamp: Date | null): void {
    const b = this.#book
    this.#book = liveBook(b, b.bids, b.asks, tickSize, timestamp ?? b.timestamp)
  }

  /** Whether the top of the book agrees with a frame's best bid and ask (a missing figure agrees with anything). */
  agrees(bestBid: number | null, bestAsk: number | null): boolean {
    return sameTop(this.#book.bids[0]?.price, bestBid) && sameTop(this.#book.asks[0]?.price, bestAsk)
  }
}

/**
 * A new book value: `b`'s constant fields with the ones that change. Written out rather than spread: one object
 * shape for every book, built at the cost of its fields (a spread copies through a slower path), per change.
 */
function liveBook(b: Omit<LiveBook, 'bids' | 'asks'>, bids: readonly Level[], asks: readonly Level[], tickSize: number | null, timestamp: Date | null): LiveBook {
  return { tokenId: b.tokenId, market: b.market, bids, asks, tickSize, minOrderSize: b.minOrderSize, negRisk: b.negRisk, timestamp }
}

// An empty side has been reported as "0" (and asks as "1"): both agree with having no level.
function sameTop(top: number | undefined, expected: number | null): boolean {
  if (expected === null) return true
  if (top === undefined) return expected === 0 || expected === 1
  return Math.abs(top - expected) < 1e-9
}

/** A copy of `levels` with `price` set to `size` (removed at 0), kept sorted (descending when `descending`). */
function setLevel(levels: readonly Level[], price: number, size: number, descending: boolean): Level[] {
  let lo = 0
  let hi = levels.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const p = (levels[mid] as Level).price
    if (descending ? p > price : p < price) lo = mid + 1
    else hi = mid
  }
  const out = levels.slice()
  const found = lo < out.length && (out[lo] as Level).price === price
  if (size === 0) {
    if (found) out.splice(lo, 1)
  } else if (found) {
    out[lo] = { price, size }
  } else {
    out.splice(lo, 0, { price, size })
  }
  return out
}
