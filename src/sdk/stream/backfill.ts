/**
 * Filling a stream's gap: after a reconnect, the trades the watched tokens made between the moment the
 * connection was lost and the backfill, fetched from the trades service (newest first, walked back until the
 * loss), without those the stream already yielded live, oldest first. What cannot be filled (the service's
 * offset cap, an error, no market known for the tokens yet) is said, never hidden.
 */
import type { Trade } from '../data/trades.js'

/** Trades of markets (condition ids), newest first: the client's `pm.trades.where({ market })`. */
export type GapTradesSource = (conditionIds: readonly string[], signal: AbortSignal | undefined) => AsyncIterable<Trade>

/** The trades a gap held, given back after a reconnect (`backfill: true`). */
export interface GapFilledEvent {
  readonly type: 'gap_filled'
  /** The tokens of the connection that reconnected. */
  readonly tokenIds: readonly string[]
  /** When the connection was lost. */
  readonly from: Date
  /** When the backfill asked the trades service. */
  readonly to: Date
  /** The trades of the gap that the stream had not yielded, oldest first: they were fetched, not streamed. */
  readonly trades: readonly Trade[]
}

/** A gap the stream could not fill: its trades may be lost. */
export interface GapUnfilledEvent {
  readonly type: 'gap_unfilled'
  readonly tokenIds: readonly string[]
  readonly from: Date
  readonly to: Date
  /** Why: the service's offset cap, its error, or no market known for the tokens. */
  readonly reason: string
}

/** The trades service gives timestamps in whole seconds: a trade of the second the loss happened in is in the gap. */
const SECOND = 1000

/** A name of a trade that the stream and the service both give the same way. */
export function tradeKey(t: { readonly transactionHash: string | null; readonly tokenId: string | null; readonly timestamp: number; readonly price: number; readonly size: number }): string {
  return t.transactionHash ?? `${t.tokenId}-${Math.floor(t.timestamp / SECOND)}-${t.price}-${t.size}`
}

/** Fetches the gap `[from, to]` of `tokenIds`' trades; `seen` says which the stream yielded (or will yield) live. */
export async function fillGap(
  source: GapTradesSource,
  gap: { readonly tokenIds: readonly string[]; readonly conditionIds: readonly string[]; readonly from: Date; readonly to: Date },
  seen: (key: string) => boolean,
  signal: AbortSignal | undefined,
): Promise<GapFilledEvent | GapUnfilledEvent> {
  const { tokenIds, from, to } = gap
  if (gap.conditionIds.length === 0) return { type: 'gap_unfilled', tokenIds, from, to, reason: 'no market of these tokens was seen before the loss' }
  const watched = new Set(tokenIds)
  const found: Trade[] = []
  let walked = 0
  let reachedLoss = false
  try {
    for await (const trade of source(gap.conditionIds, signal)) {
      walked++
      const at = trade.timestamp * SECOND
      if (at < from.getTime() - SECOND) {
        reachedLoss = true
        break
      }
      if (at > to.getTime() || trade.tokenId === null || !watched.has(trade.tokenId)) continue
      if (!seen(tradeKey({ ...trade, timestamp: at }))) found.push(trade)
    }
  } catch (err) {
    return { type: 'gap_unfilled', tokenIds, from, to, reason: err instanceof Error ? err.message : String(err) }
  }
  // The walk ended before the loss without running out of trades: the service's offset cap stopped it.
  if (!reachedLoss && walked >= MAX_GAP_TRADES) {
    return { type: 'gap_unfilled', tokenIds, from, to, reason: 'more trades than the trades service serves (its offset cap)' }
  }
  return { type: 'gap_filled', tokenIds, from, to, trades: found.reverse() }
}

/** Past this many trades a gap is not filled: the service serves offsets up to 10,000. */
export const MAX_GAP_TRADES = 10_000
