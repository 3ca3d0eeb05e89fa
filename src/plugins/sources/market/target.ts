/**
 * What a watch's `market:` names, resolved once through the catalog: the tokens to subscribe, the token whose
 * price the price conditions read (the first outcome, "Yes" on a binary market), and `market.*` of the templates.
 */
import type { MarketClient } from '../../../sdk/index.js'
import type { JsonObject } from '../../../core/types.js'

/** A resolved watch target. */
export interface WatchTarget {
  readonly tokenIds: readonly string[]
  readonly priceToken: string
  /** The condition id, when the catalog gave one (a resolution names its market by it). */
  readonly conditionId: string | undefined
  /** `market.*` of the templates. */
  readonly fields: JsonObject
  /** The market's page (`https://polymarket.com/market/<slug>`), the link its jobs keep; undefined for bare token ids. */
  readonly page: string | undefined
}

/** The market page a slug names. */
export const MARKET_PAGE = 'https://polymarket.com/market/'

/** Resolves a slug through the catalog; token ids are taken as they are. */
export async function resolveTarget(pm: MarketClient, market: string | readonly string[], signal: AbortSignal): Promise<WatchTarget> {
  if (typeof market !== 'string') {
    const [first = ''] = market
    return { tokenIds: market, priceToken: first, conditionId: undefined, fields: { question: `token ${first}`, slug: '', token_id: first, outcome: '' }, page: undefined }
  }
  const found = await pm.markets.bySlug(market, { signal })
  const outcomes = found.outcomes.filter((o): o is typeof o & { tokenId: string } => o.tokenId !== null)
  const [first] = outcomes
  if (first === undefined) throw new Error(`market "${market}" has no order-book token to watch`)
  return {
    tokenIds: outcomes.map((o) => o.tokenId),
    priceToken: first.tokenId,
    conditionId: found.conditionId,
    page: found.slug === '' ? undefined : `${MARKET_PAGE}${encodeURIComponent(found.slug)}`,
    fields: {
      question: found.question, slug: found.slug, condition_id: found.conditionId, token_id: first.tokenId, outcome: first.label,
      end_date: found.endDate?.toISOString() ?? null, closed: found.closed,
    },
  }
}
