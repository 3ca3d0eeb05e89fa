/**
 * The stream's events as observations of one watched market: the top of the watched token's book (from a
 * snapshot, the best bid and ask a delta carries, or a `best_bid_ask`), a trade of any of its tokens, its
 * resolution. Events of other tokens and markets say nothing about it.
 */
import type { StreamEvent } from '../../../sdk/index.js'
import type { Observation } from './conditions.js'
import type { WatchTarget } from './target.js'

/** The observations in `event`; `now` stands in for a missing timestamp. */
export function observationsOf(event: StreamEvent, target: WatchTarget, now: number): Observation[] {
  const at = (t: Date | null): number => t?.getTime() ?? now
  switch (event.type) {
    case 'book': {
      if (event.tokenId !== target.priceToken) return []
      const bid = event.bids.length === 0 ? null : Math.max(...event.bids.map((l) => l.price))
      const ask = event.asks.length === 0 ? null : Math.min(...event.asks.map((l) => l.price))
      return [{ kind: 'top', bid, ask, at: at(event.timestamp) }]
    }
    case 'price_change': {
      const last = event.changes.findLast((c) => c.tokenId === target.priceToken && c.bestBid !== null && c.bestAsk !== null)
      return last === undefined ? [] : [{ kind: 'top', bid: last.bestBid, ask: last.bestAsk, at: at(event.timestamp) }]
    }
    case 'best_bid_ask':
      return event.tokenId === target.priceToken ? [{ kind: 'top', bid: event.bestBid, ask: event.bestAsk, at: at(event.timestamp) }] : []
    case 'last_trade_price': {
      if (!target.tokenIds.includes(event.tokenId)) return []
      const t = at(event.timestamp)
      // A trade without a transaction hash is named by what it was, so seeing it twice still names it once.
      const id = event.transactionHash ?? `${event.tokenId}-${Math.floor(t / 1000)}-${event.price}-${event.size}`
      return [{ kind: 'trade', id, price: event.price, size: event.size, side: event.side, at: t }]
    }
    case 'gap_filled':
      // The trades the stream missed while it reconnected, fetched from the trades service (whole seconds).
      return event.trades.flatMap((t) => (t.tokenId !== null && target.tokenIds.includes(t.tokenId)
        ? [{ kind: 'trade' as const, id: t.transactionHash ?? `${t.tokenId}-${t.timestamp}-${t.price}-${t.size}`, price: t.price, size: t.size, side: t.side, at: t.timestamp * 1000, backfilled: true }]
        : []))
    case 'market_resolved': {
      const ours = event.market === target.conditionId || event.tokenIds.some((id) => target.tokenIds.includes(id))
      return ours ? [{ kind: 'resolved', outcome: event.winningOutcome, at: at(event.timestamp) }] : []
    }
    default:
      return []
  }
}
