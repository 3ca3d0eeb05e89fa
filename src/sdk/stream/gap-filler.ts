/**
 * One connection's backfill: it passes live events on, remembering the trades and the markets it saw; after a
 * reconnect it holds the new connection's events back while it fetches the gap, then yields the gap's trades
 * (without those yielded live before the loss or held back since) and the held events, in that order.
 */
import { fillGap, tradeKey, type GapTradesSource } from './backfill.js'
import type { LastTradePriceEvent, StreamEvent } from './events.js'

/** Trades remembered as yielded: enough for any gap a reconnect leaves, bounded for a stream that runs for days. */
const REMEMBERED = 10_000

/** What {@link createGapFiller} returns. */
export interface GapFiller {
  /** An event of the connection: yielded now, or held while a gap is being filled. */
  live(event: StreamEvent): void
  /** The connection came back; `lostAt` is when it was lost. */
  reconnected(lostAt: Date): void
}

/** A gap filler for the connection of `tokenIds`, yielding through `emit`. */
export function createGapFiller(trades: GapTradesSource, tokenIds: readonly string[], emit: (e: StreamEvent) => void, signal: AbortSignal | undefined): GapFiller {
  const markets = new Set<string>()
  const yielded = new Set<string>()
  let held: StreamEvent[] | undefined
  let pending = 0
  let chain = Promise.resolve()
  const keyOf = (e: LastTradePriceEvent): string => tradeKey({ ...e, timestamp: e.timestamp?.getTime() ?? 0 })

  const pass = (event: StreamEvent): void => {
    if (event.type === 'book' || event.type === 'last_trade_price' || event.type === 'price_change') markets.add(event.market)
    if (event.type === 'last_trade_price') {
      yielded.add(keyOf(event))
      // A Set iterates in insertion order: the oldest goes first.
      if (yielded.size > REMEMBERED) yielded.delete(yielded.values().next().value as string)
    }
    emit(event)
  }

  return {
    live(event) {
      if (held) held.push(event)
      else pass(event)
    },
    reconnected(lostAt) {
      // Fills run one after another (a second loss during a fill waits for it); events stay held until the last.
      const waiting: StreamEvent[] = (held ??= [])
      pending++
      chain = chain.then(async () => {
        const gap = await fillGap(trades, { tokenIds, conditionIds: [...markets], from: lostAt, to: new Date() }, (key) => yielded.has(key), signal)
        if (signal?.aborted) return
        // Trades the new connection sent while the fill ran are yielded live, after the gap: not twice.
        const heldKeys = new Set(waiting.flatMap((e) => (e.type === 'last_trade_price' ? [keyOf(e)] : [])))
        emit(gap.type === 'gap_filled' ? { ...gap, trades: gap.trades.filter((t) => !heldKeys.has(tradeKey({ ...t, timestamp: t.timestamp * 1000 }))) } : gap)
        if (--pending > 0) return
        held = undefined
        for (const event of waiting) pass(event)
      })
    },
  }
}
