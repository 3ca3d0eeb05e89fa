/** `pm.markets`: catalog markets, as a filtered list and by id or slug. */
import * as v from 'valibot'
import type { Page } from '../query.js'
import { GammaMarketSchema, GammaMarketsKeysetSchema } from '../wire/gamma.js'
import { marketParams, type MarketFilter, type MarketOrderField } from './filters.js'
import { CatalogQuery, type CatalogSpec } from './list-query.js'
import { toMarket, type Market } from './model.js'
import { tagIdOf } from './tags.js'

const spec: CatalogSpec<Market, MarketFilter> = {
  path: '/markets',
  sendsTagSlug: false,
  noun: 'market',
  one: v.pipe(GammaMarketSchema, v.transform(toMarket)),
  list: v.pipe(v.array(GammaMarketSchema), v.transform((ms) => ms.map(toMarket))),
  keyset: v.pipe(
    GammaMarketsKeysetSchema,
    v.transform((w): Page<Market> => ({ items: (w.markets ?? []).map(toMarket), nextCursor: w.next_cursor || undefined })),
  ),
  // The market lists filter by tag id only: a slug costs one lookup per walk.
  async params(ctx, filter, signal) {
    const tagId = filter.tagId ?? (filter.tag === undefined ? undefined : await tagIdOf(ctx, filter.tag, signal))
    return { ...marketParams(filter), tag_id: tagId }
  },
}

/**
 * A query over catalog markets.
 *
 * @example
 * ```ts
 * const top = await pm.markets.where({ closed: false, tag: 'crypto' }).orderBy('volume24hr').toArray({ max: 20 })
 * ```
 */
export class MarketsQuery extends CatalogQuery<Market, MarketFilter, MarketOrderField> {
  protected spec(): CatalogSpec<Market, MarketFilter> {
    return spec
  }
}
