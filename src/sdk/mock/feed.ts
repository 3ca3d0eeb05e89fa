/**
 * The mock market's live books: they start as the REST mock's books and move one step at a time. Scripted (the
 * default), each step is one small change in turn (a size change, a new or removed level, a 10-share trade), so
 * tests can count on what a step does; with a {@link MarketMotion} (`motion: 'market'`), each step moves every
 * watched token like a market (a wandering price, trades of many sizes), from a seed. `move` and `trade` push a
 * change by hand in either mode. Each returns the frames the market channel sends about it; the REST `/book` of
 * the same server reads the same books.
 */
import { initialBook, MOCK_TICK, type MockBookWire } from './clob.js'
import { MarketMotion } from './market-motion.js'

/** One frame to send, and which subscribers it is for. */
export interface FeedFrame {
  /** The token the frame is about: only its subscribers get it. */
  readonly tokenId: string
  /** Only for connections that enabled custom features. */
  readonly custom: boolean
  readonly payload: Record<string, unknown>
}

interface Levels {
  readonly market: string
  /** price → size. */
  readonly bids: Map<number, number>
  readonly asks: Map<number, number>
  readonly base: MockBookWire
}

const r3 = (n: number): string => String(Math.round(n * 1000) / 1000)
const r2 = (n: number): string => String(Math.round(n * 100) / 100)

/** The live books of the mock market channel. */
export class MockFeed {
  readonly #books = new Map<string, Levels>()
  readonly #now: () => number
  readonly #seed: number | undefined
  #motion: MarketMotion | undefined
  #steps = 0
  #trades = 0

  /** `seed`: move like a market from this seed; without one, the scripted steps. */
  constructor(now: () => number, seed?: number) {
    this.#now = now
    this.#seed = seed
    this.#motion = seed === undefined ? undefined : new MarketMotion(seed)
  }

  /** The seed of the market motion; `undefined` for the scripted steps. */
  get seed(): number | undefined {
    return this.#seed
  }

  /** Whether `tokenId` has a live book (an open market's token). */
  has(tokenId: string): boolean {
    return this.#levels(tokenId) !== undefined
  }

  /**
   * Puts a token's midpoint at `price` by hand (rounded to the tick, kept inside 0.02..0.98): a new book a tick
   * either side of it. With the market motion, the price wanders on from there.
   */
  move(tokenId: string, price: number): FeedFrame[] {
    const l = this.#levels(tokenId)
    if (l === undefined) return []
    const ticks = Math.round(price / MOCK_TICK)
    this.#motion?.moveTo(tokenId, ticks)
    const clamped = Math.min(98, Math.max(2, ticks))
    this.#rebuild(l, clamped, () => 1_000)
    return this.#bookFrames(tokenId, l, String(this.#now()))
  }

  /** A trade of `size` shares by hand, at the best ask (a buy) or the best bid (a sell); the book stays as it is. */
  trade(tokenId: string, size: number, side: 'BUY' | 'SELL' = 'BUY'): FeedFrame[] {
    const l = this.#levels(tokenId)
    if (l === undefined) return []
    const price = side === 'BUY' ? Math.min(...l.asks.keys()) : Math.max(...l.bids.keys())
    return [this.#tradeFrame(tokenId, l, price, size, side, String(this.#now()))]
  }

  /** A token's current book in wire form (levels in the observed order); `undefined` for closed or unknown tokens. */
  book(tokenId: string): MockBookWire | undefined {
    const l = this.#levels(tokenId)
    if (l === undefined) return undefined
    const side = (m: Map<number, number>, ascending: boolean) =>
      [...m].sort(([a], [b]) => (ascending ? a - b : b - a)).map(([price, size]) => ({ price: r3(price), size: r2(size) }))
    // As on the real channel: bids ascending, asks descending (best level last).
    return { ...l.base, timestamp: String(this.#now()), bids: side(l.bids, true), asks: side(l.asks, false) }
  }

  /** Moves one of `tokenIds` (in turn) one step; returns the frames that tell about it. */
  step(tokenIds: readonly string[]): FeedFrame[] {
    const open = tokenIds.filter((id) => this.#levels(id) !== undefined)
    if (open.length === 0) return []
    if (this.#motion !== undefined) return this.#marketStep(this.#motion, open)
    const n = this.#steps++
    const tokenId = open[n % open.length] as string
    // Each token goes through every kind of move in turn, whatever the number of tokens.
    const move = Math.floor(n / open.length) % 4
    const l = this.#levels(tokenId) as Levels
    const ts = String(this.#now())
    const bestBid = Math.max(...l.bids.keys())
    const bestAsk = Math.min(...l.asks.keys())
    switch (move) {
      case 0:
        return [this.#change(tokenId, l, 'BUY', bestBid, (l.bids.get(bestBid) ?? 0) + 10 * ((n % 5) + 1), ts)]
      case 1: {
        // A level appears a tick below the lowest bid (never at or below 0), or the lowest goes once there are
        // five (or when there is no room below it, keeping the best).
        const lowest = Math.min(...l.bids.keys())
        const below = Math.round((lowest - MOCK_TICK) * 1000) / 1000
        if (l.bids.size < 5 && below >= MOCK_TICK) return [this.#change(tokenId, l, 'BUY', below, 150, ts)]
        if (l.bids.size > 1) return [this.#change(tokenId, l, 'BUY', lowest, 0, ts)]
        return [this.#change(tokenId, l, 'BUY', bestBid, (l.bids.get(bestBid) ?? 0) + 150, ts)]
      }
      case 2: {
        // A taker buys 10 at the best ask: the trade, the new book, and its top for custom-feature subscribers.
        // The last ask level is refilled rather than emptied: a book keeps a price on each side.
        const left = (l.asks.get(bestAsk) ?? 0) - 10
        if (left > 0) l.asks.set(bestAsk, left)
        else if (l.asks.size > 1) l.asks.delete(bestAsk)
        else l.asks.set(bestAsk, 100)
        const trade = { event_type: 'last_trade_price', asset_id: tokenId, market: l.market, price: r3(bestAsk), size: '10', side: 'BUY', fee_rate_bps: '0', timestamp: ts, transaction_hash: `0x${String(n).padStart(64, '0')}` }
        const book = { event_type: 'book', ...this.book(tokenId) }
        return [
          { tokenId, custom: false, payload: trade },
          { tokenId, custom: false, payload: book },
          { tokenId, custom: true, payload: this.#top(tokenId, l, ts) },
        ]
      }
      default:
        return [this.#change(tokenId, l, 'SELL', bestAsk, Math.max(10, (l.asks.get(bestAsk) ?? 0) - 5), ts)]
    }
  }

  /** Back to the starting books (and, with the market motion, to the start of its seed's sequence). */
  reset(): void {
    this.#books.clear()
    this.#steps = 0
    this.#trades = 0
    if (this.#seed !== undefined) this.#motion = new MarketMotion(this.#seed)
  }

  // Every watched token moves each step, in id order, so the same seed gives the same market whoever watches first.
  #marketStep(motion: MarketMotion, open: readonly string[]): FeedFrame[] {
    const ts = String(this.#now())
    return open.flatMap((tokenId) => {
      const l = this.#levels(tokenId) as Levels
      const bid = Math.max(...l.bids.keys())
      const ask = Math.min(...l.asks.keys())
      const { ticks, trade } = motion.step(tokenId, Math.round((bid + ask) / 2 / MOCK_TICK))
      this.#rebuild(l, ticks, () => motion.levelSize())
      const frames: FeedFrame[] = []
      if (trade !== undefined) {
        const price = trade.side === 'BUY' ? Math.min(...l.asks.keys()) : Math.max(...l.bids.keys())
        frames.push(this.#tradeFrame(tokenId, l, price, trade.size, trade.side, ts))
      }
      return [...frames, ...this.#bookFrames(tokenId, l, ts)]
    })
  }

  /** Five levels each side, the best bid a tick below `ticks` and the best ask a tick above (midpoint `ticks`). */
  #rebuild(l: Levels, ticks: number, size: () => number): void {
    l.bids.clear()
    l.asks.clear()
    for (let k = 1; k <= 5; k++) {
      const bid = Math.round((ticks - k) * 1000 * MOCK_TICK) / 1000
      const ask = Math.round((ticks + k) * 1000 * MOCK_TICK) / 1000
      if (bid >= MOCK_TICK - 1e-9) l.bids.set(bid, size())
      if (ask <= 1 - MOCK_TICK + 1e-9) l.asks.set(ask, size())
    }
  }

  #bookFrames(tokenId: string, l: Levels, ts: string): FeedFrame[] {
    return [
      { tokenId, custom: false, payload: { event_type: 'book', ...this.book(tokenId) } },
      { tokenId, custom: true, payload: this.#top(tokenId, l, ts) },
    ]
  }

  #tradeFrame(tokenId: string, l: Levels, price: number, size: number, side: 'BUY' | 'SELL', ts: string): FeedFrame {
    // Unique in the run: a gateway's de-dup key for a trade alert is its hash.
    const hash = `0x${n32(`${this.#seed ?? 'hand'}:${++this.#trades}`, ts)}${String(this.#trades).padStart(56, '0')}`
    return { tokenId, custom: false, payload: { event_type: 'last_trade_price', asset_id: tokenId, market: l.market, price: r3(price), size: String(size), side, fee_rate_bps: '0', timestamp: ts, transaction_hash: hash } }
  }

  #levels(tokenId: string): Levels | undefined {
    let l = this.#books.get(tokenId)
    if (l !== undefined) return l
    const base = initialBook(tokenId)
    // The mock's odd book with `bids: null` has no bids to move: it is served by REST only.
    if (base === undefined || base.bids === null) return undefined
    const toMap = (levels: readonly { price: string; size: string }[]) => new Map(levels.map((x) => [Number(x.price), Number(x.size)]))
    l = { market: base.market, bids: toMap(base.bids), asks: toMap(base.asks), base }
    this.#books.set(tokenId, l)
    return l
  }

  #change(tokenId: string, l: Levels, side: 'BUY' | 'SELL', price: number, size: number, ts: string): FeedFrame {
    const levels = side === 'BUY' ? l.bids : l.asks
    if (size === 0) levels.delete(price)
    else levels.set(price, size)
    const top = this.#top(tokenId, l, ts)
    const entry = { asset_id: tokenId, price: r3(price), size: r2(size), side, hash: `${n32(tokenId, ts)}`, best_bid: top['best_bid'], best_ask: top['best_ask'] }
    return { tokenId, custom: false, payload: { market: l.market, price_changes: [entry], timestamp: ts, event_type: 'price_change' } }
  }

  #top(tokenId: string, l: Levels, ts: string): Record<string, unknown> {
    const bid = l.bids.size > 0 ? Math.max(...l.bids.keys()) : 0
    const ask = l.asks.size > 0 ? Math.min(...l.asks.keys()) : 1
    return { event_type: 'best_bid_ask', market: l.market, asset_id: tokenId, best_bid: r3(bid), best_ask: r3(ask), spread: r3(ask - bid), timestamp: ts }
  }
}

/** A short opaque hash for an entry, as the channel sends one. */
function n32(tokenId: string, ts: string): string {
  let h = 2166136261
  for (const c of tokenId + ts) h = Math.imul(h ^ c.charCodeAt(0), 16777619)
  return (h >>> 0).toString(16).padStart(8, '0')
}
