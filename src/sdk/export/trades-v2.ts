/**
 * The trades export's walk on the Data API v2: one cursor walk of the market's trade feed, newest first. v2 has no
 * offset cap, so nothing needs splitting by side or wallet; the checkpoint keeps the cursor after the last page
 * written, and a resumed export asks for exactly the page that comes next (the feed's keyset cursor is stable
 * under new trades). The walk's one hole is the service's own: a market's feed covers the last three years.
 */
import type { MarketClient } from '../client.js'
import { MarketCursorError } from '../errors.js'
import type { Row } from './walk.js'

/** How far back `/v2/trades` reads one market's trades (the service's fixed window for a `condition` filter). */
export const V2_TRADES_WINDOW_SECONDS = 3 * 365 * 86_400

const ENDPOINT = 'data GET /v2/trades'
/** Cursors the checkpoint remembers: a loop comes back to a recent one, and the checkpoint stays small on long walks. */
const SEEN_CURSORS = 64

/** The state of a v2 trades export between steps. */
export interface TradesV2State {
  /** Which walk this state is of. */
  readonly api: 'v2'
  /** The cursor of the next page: the `nextCursor` of the last page written (`null` before the first). */
  readonly after: string | null
  /** Pages read. */
  readonly steps: number
  /** Rows kept (those from `since` on). */
  readonly rows: number
  /** The latest cursors followed, so a resumed walk still refuses one the service repeats. */
  readonly seen: readonly string[]
  /** Set when the walk ended: it read the last page (`end`) or reached `--since` (`since`). */
  readonly ended: 'end' | 'since' | null
  /** Unix seconds the feed's window starts at (three years before the export started). */
  readonly windowStart: number
}

/** The state before the first v2 page. */
export function startV2(nowSeconds: number): TradesV2State {
  return { api: 'v2', after: null, steps: 0, rows: 0, seen: [], ended: null, windowStart: nowSeconds - V2_TRADES_WINDOW_SECONDS }
}

/** The columns a trade of either API has, as an export writes them. */
type TradeColumns = { readonly timestamp: number } & {
  readonly [K in 'side' | 'outcome' | 'outcomeIndex' | 'price' | 'size' | 'tokenId' | 'wallet' | 'transactionHash' | 'conditionId']: string | number | null
}

/** A trade as an export row: one shape for v1 and v2, so an export that falls back writes the same columns. */
export function tradeRow(t: TradeColumns): Row {
  return {
    timestamp: t.timestamp,
    time: new Date(t.timestamp * 1000).toISOString(),
    side: t.side,
    outcome: t.outcome,
    outcomeIndex: t.outcomeIndex,
    price: t.price,
    size: t.size,
    tokenId: t.tokenId,
    wallet: t.wallet,
    transactionHash: t.transactionHash,
    conditionId: t.conditionId,
  }
}

/** Reads the page after `state.after` and returns its rows (those from `since` on) and the state after it. */
export async function stepV2(
  pm: MarketClient,
  conditionId: string,
  state: TradesV2State,
  options: { readonly since: number | null; readonly pageSize: number },
  signal: AbortSignal | undefined,
): Promise<{ rows: Row[]; state: TradesV2State; done: boolean }> {
  const { since, pageSize } = options
  const query = pm.v2.trades.where({ condition: conditionId }).limit(pageSize).after(state.after ?? undefined)
  const page = await query.page({ signal })
  const kept = page.items.filter((t) => since === null || t.timestamp >= since)
  const reachedSince = since !== null && page.items.some((t) => t.timestamp < since)
  const next = page.hasMore ? page.nextCursor : undefined
  if (page.hasMore && next === undefined) throw new MarketCursorError('missing', ENDPOINT, page.cursor, state.steps + 1)
  // The SDK's own guard (cursorWalk) lives for one walk in one process; the checkpoint carries recent cursors
  // across a resume, so a service that hands back an earlier cursor stops the export instead of looping it.
  if (next !== undefined && (next === state.after || state.seen.includes(next))) throw new MarketCursorError('repeated', ENDPOINT, page.cursor, state.steps + 1)
  const ended = reachedSince ? 'since' : next === undefined ? 'end' : null
  return {
    rows: kept.map(tradeRow),
    state: {
      ...state,
      after: next ?? null,
      steps: state.steps + 1,
      rows: state.rows + kept.length,
      seen: next === undefined ? state.seen : [...state.seen, next].slice(-SEEN_CURSORS),
      ended,
    },
    done: ended !== null,
  }
}
