/**
 * What the price did while a watch was not looking (the gateway down, the stream reconnecting), read from the
 * order-book service's price history of the watched token: a crossing or a move that happened and reverted
 * before the watch looked again is in the history, not in the book. Each point becomes an observation, found
 * late; the conditions then alert it once, under the key it would have had.
 */
import type { MarketClient } from '../../../sdk/index.js'
import type { Observation } from './conditions.js'
import type { WatchTarget } from './target.js'

const DAY_MS = 86_400_000
/** The longest window the service answers (`startTs`/`endTs`, spec: at most 15 days). */
export const HISTORY_WINDOW_MS = 15 * DAY_MS

/**
 * The points of the price history after `since` (ms; a point at or before it was seen already), up to `now`,
 * oldest first, as tops whose midpoint is the point's price. The window is cut to the service's 15 days, and
 * the bucket is a minute for a day, 5 minutes for a week, 15 beyond.
 */
export async function missedPrices(pm: MarketClient, target: WatchTarget, since: number, now: number, signal: AbortSignal): Promise<Observation[]> {
  const start = Math.max(since, now - HISTORY_WINDOW_MS)
  // Points are whole seconds: one after `since` lies in a later second. Not `now - start < 1000`: a stream
  // back 300 ms after its last observation can already have missed a whole second, and its points.
  if (Math.floor(now / 1000) <= Math.floor(start / 1000)) return []
  const span = now - start
  const fidelity = span <= DAY_MS ? 1 : span <= 7 * DAY_MS ? 5 : 15
  const points = await pm.token(target.priceToken).history({ start: Math.floor(start / 1000), end: Math.ceil(now / 1000), fidelity }, { signal })
  return points
    .filter((p) => p.t * 1000 > since && p.t * 1000 <= now + 1000)
    .sort((a, b) => a.t - b.t)
    .map((p) => ({ kind: 'top', bid: p.p, ask: p.p, at: p.t * 1000, fromHistory: true }))
}
