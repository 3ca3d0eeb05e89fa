/** `pm.v2.holders(condition)`: the top holders of each outcome token of markets (`/v2/holders`). */
import * as v from 'valibot'
import { MarketUsageError } from '../../errors.js'
import type { QueryInit } from '../../http.js'
import { V2HolderGroupSchema } from '../../wire/data-v2.js'
import { toHolder, type HolderGroup } from './model.js'
import { V2Query, type V2Schema, idList, v2Page } from './query.js'

/** Filters of {@link HoldersQuery}; the markets are given to `pm.v2.holders(condition)`. */
export interface HolderFilter {
  /** @internal Set by `pm.v2.holders(condition)`. */
  readonly condition?: string | readonly string[] | undefined
  /** Only holders of at least this many shares. */
  readonly minBalance?: number | undefined
  /** Adds each holder's PnL (one market only; at most 100 per token). */
  readonly includePnl?: boolean | undefined
}

const schema = v2Page(V2HolderGroupSchema, (w: v.InferOutput<typeof V2HolderGroupSchema>): HolderGroup => ({ tokenId: w.token_id, holders: w.holders.map(toHolder) }))

/**
 * Holders, largest first, as one group per outcome token per page; `limit()` counts holders per token. Groups of
 * several markets interleave and a token's group stops appearing once it is exhausted: merge pages by `tokenId`.
 *
 * @example
 * ```ts
 * const [yes, no] = await pm.v2.holders(m.conditionId).limit(20).list()
 * ```
 */
export class HoldersQuery extends V2Query<HolderGroup, HolderFilter> {
  protected readonly path = '/v2/holders'
  protected readonly schema: V2Schema<HolderGroup> = schema

  protected params(f: HolderFilter): QueryInit {
    const condition = idList('condition', f.condition)
    if (condition === undefined) throw new MarketUsageError('holders need a market: pm.v2.holders(conditionId)')
    if (f.includePnl === true && condition.includes(',')) throw new MarketUsageError('includePnl takes exactly one condition id')
    return { condition, min_balance: f.minBalance, include_pnl: f.includePnl }
  }
}
