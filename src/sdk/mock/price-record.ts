/**
 * The prices the mock's market channel has sent, kept as each token's price history: every book, top of book
 * and price change a test publishes (or a tick makes) is a point of `/prices-history` at the second it was
 * sent, so a price that moved and came back while a client was away is in the history, as on the real service.
 */

/** A point of a token's recorded history: unix seconds, the midpoint. */
export interface RecordedPoint {
  readonly t: number
  readonly p: number
}

/** The most points kept per token (the oldest go first). */
const MAX_POINTS = 10_000

/** The recorded prices of every token. */
export class PriceRecord {
  readonly #points = new Map<string, RecordedPoint[]>()

  /** Records the midpoints a channel frame (an object or an array of them) tells; `now` when it has no timestamp. */
  record(frame: unknown, now: number): void {
    for (const event of Array.isArray(frame) ? frame : [frame]) {
      if (typeof event !== 'object' || event === null) continue
      const e = event as Record<string, unknown>
      const t = Math.floor((Number(e['timestamp']) || now) / 1000)
      if (e['event_type'] === 'book') this.#add(e['asset_id'], t, best(e['bids'], Math.max), best(e['asks'], Math.min))
      else if (e['event_type'] === 'best_bid_ask') this.#add(e['asset_id'], t, Number(e['best_bid']), Number(e['best_ask']))
      else if (e['event_type'] === 'price_change' && Array.isArray(e['price_changes'])) {
        for (const c of e['price_changes'] as Record<string, unknown>[]) this.#add(c['asset_id'], t, Number(c['best_bid']), Number(c['best_ask']))
      }
    }
  }

  /** A token's recorded points, oldest first. */
  points(tokenId: string): readonly RecordedPoint[] {
    return this.#points.get(tokenId) ?? []
  }

  reset(): void {
    this.#points.clear()
  }

  #add(tokenId: unknown, t: number, bid: number, ask: number): void {
    if (typeof tokenId !== 'string' || !Number.isFinite(bid) || !Number.isFinite(ask)) return
    const list = this.#points.get(tokenId) ?? []
    list.push({ t, p: Math.round(((bid + ask) / 2) * 1000) / 1000 })
    if (list.length > MAX_POINTS) list.shift()
    this.#points.set(tokenId, list)
  }
}

/** The best price of a side's levels (`Math.max` for bids, `Math.min` for asks); NaN when it has none. */
function best(levels: unknown, pick: (...n: number[]) => number): number {
  if (!Array.isArray(levels) || levels.length === 0) return NaN
  return pick(...levels.map((l) => Number((l as { price?: unknown }).price)))
}
