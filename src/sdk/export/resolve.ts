/** Finds the market an export is about, from what a person types: a slug, a token id or a condition id. */
import type { Market } from '../catalog/model.js'
import type { MarketClient } from '../client.js'
import { MarketUsageError } from '../errors.js'

const TOKEN_ID = /^\d{10,}$/
const CONDITION_ID = /^0x[0-9a-fA-F]{64}$/

/** What `resolveTarget` found: the market (when the catalog knows it) and the token ids to export. */
export interface Target {
  readonly market: Market | null
  readonly tokens: readonly { readonly tokenId: string; readonly outcome: string | null; readonly index: number | null }[]
}

/** A slug (every outcome of its market) or a token id (that outcome only). */
export async function resolveTokens(pm: MarketClient, target: string, signal?: AbortSignal): Promise<Target> {
  if (TOKEN_ID.test(target)) {
    const market = await findOne(pm, { tokenIds: [target] }, signal)
    const index = market?.outcomes.findIndex((o) => o.tokenId === target) ?? -1
    return { market, tokens: [{ tokenId: target, outcome: market?.outcomes[index]?.label ?? null, index: index < 0 ? null : index }] }
  }
  const market = await pm.markets.bySlug(target, { signal })
  const tokens = market.outcomes.flatMap((o, index) => (o.tokenId === null ? [] : [{ tokenId: o.tokenId, outcome: o.label, index }]))
  if (tokens.length === 0) throw new MarketUsageError(`Market "${market.slug}" has no order-book tokens, so no price history`)
  return { market, tokens }
}

/** A slug or a condition id, as the condition id the trades service filters on. */
export async function resolveConditionId(pm: MarketClient, target: string, signal?: AbortSignal): Promise<{ conditionId: string; market: Market | null }> {
  if (CONDITION_ID.test(target)) return { conditionId: target, market: await findOne(pm, { conditionIds: [target] }, signal) }
  const market = await pm.markets.bySlug(target, { signal })
  if (market.conditionId === '') throw new MarketUsageError(`Market "${market.slug}" has no condition id, so no trades`)
  return { conditionId: market.conditionId, market }
}

// The catalog lists open markets unless asked: a resolved market's token is found with `closed: true`.
async function findOne(pm: MarketClient, filter: { tokenIds?: string[]; conditionIds?: string[] }, signal?: AbortSignal): Promise<Market | null> {
  for (const closed of [false, true]) {
    const [found] = await pm.markets.where({ ...filter, closed }).limit(1).list({ signal })
    if (found !== undefined) return found
  }
  return null
}
