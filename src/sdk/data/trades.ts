/** `pm.trades`: recent trades from the trades service, newest first, an offset list capped at offset 10,000. */
import * as v from 'valibot'
import type { CallOptions } from '../context.js'
import type { Side } from '../clob/model.js'
import { MarketUsageError } from '../errors.js'
import { PagedQuery, checkCount, offsetPages, upTo } from '../query.js'
import { num } from '../wire/fields.js'
import { DataTradesSchema, type DataTradeWire } from '../wire/data.js'

/** The deepest offset the service serves; past it answers 400. */
export const MAX_TRADES_OFFSET = 10_000

/** One trade. */
export interface Trade {
  readonly side: Side
  /** Shares traded. */
  readonly size: number
  readonly price: number
  /** Unix seconds. */
  readonly timestamp: number
  /** Token id of the outcome traded. */
  readonly tokenId: string | null
  readonly conditionId: string | null
  readonly outcome: string | null
  readonly outcomeIndex: number | null
  readonly title: string | null
  readonly slug: string | null
  readonly eventSlug: string | null
  readonly wallet: string | null
  readonly name: string | null
  readonly pseudonym: string | null
  readonly transactionHash: string | null
  readonly raw: DataTradeWire
}

function toTrade(w: DataTradeWire): Trade {
  return {
    side: w.side === 'BUY' ? 'buy' : 'sell',
    size: num(w.size),
    price: num(w.price),
    timestamp: w.timestamp,
    tokenId: w.asset ?? null,
    conditionId: w.conditionId ?? null,
    outcome: w.outcome ?? null,
    outcomeIndex: w.outcomeIndex ?? null,
    title: w.title ?? null,
    slug: w.slug ?? null,
    eventSlug: w.eventSlug ?? null,
    wallet: w.proxyWallet || null,
    name: w.name || null,
    pseudonym: w.pseudonym || null,
    transactionHash: w.transactionHash ?? null,
    raw: w,
  }
}

const TradesSchema = v.pipe(DataTradesSchema, v.transform((ts) => ts.map(toTrade)))

/** Filters of {@link TradesQuery}. */
export interface TradeFilter {
  /** Condition id(s) of the markets. */
  readonly market?: string | readonly string[] | undefined
  readonly side?: Side | undefined
  /** A proxy wallet address. */
  readonly user?: string | undefined
  /** Only the taker side of each fill. */
  readonly takerOnly?: boolean | undefined
}

/** Internal state of {@link TradesQuery}. */
export interface TradesState {
  readonly filter: TradeFilter
  readonly limit?: number | undefined
  readonly offset?: number | undefined
}

/**
 * Recent trades, filtered.
 *
 * @example
 * ```ts
 * const sells = await pm.trades.where({ market: m.conditionId, side: 'sell' }).limit(50).list()
 * ```
 */
export class TradesQuery extends PagedQuery<Trade, TradesState> {
  /** Adds filters (merged over the current ones). */
  where(filter: TradeFilter): this {
    return this.with({ filter: { ...this.state.filter, ...filter } })
  }

  /** Page size (the service's default is 100). */
  limit(n: number): this {
    return this.with({ limit: checkCount('limit', n, 1) })
  }

  /** Where {@link list} and iteration start; at most 10,000 ({@link MAX_TRADES_OFFSET}), else a MarketUsageError. */
  offset(n: number): this {
    if (checkCount('offset', n) > MAX_TRADES_OFFSET) {
      // Said here, where the mistake is, rather than as the service's 400 on the first request.
      throw new MarketUsageError(
        `offset must be at most ${MAX_TRADES_OFFSET.toLocaleString('en-US')}, the deepest the trades service serves, got ${n}`,
      )
    }
    return this.with({ offset: n })
  }

  /** Up to `limit` trades from `offset` (more requests when the service clamps a page short). */
  list(options: CallOptions = {}): Promise<Trade[]> {
    return upTo((at, size) => this.fetchPage(at, size, options.signal), this.state.offset ?? 0, this.state.limit, MAX_TRADES_OFFSET)
  }

  protected pages(signal: AbortSignal | undefined, want: number): AsyncGenerator<readonly Trade[]> {
    const size = Math.min(this.state.limit ?? 100, want)
    return offsetPages((offset) => this.fetchPage(offset, size, signal), this.state.offset ?? 0, MAX_TRADES_OFFSET)
  }

  private fetchPage(offset: number, limit: number | undefined, signal: AbortSignal | undefined): Promise<Trade[]> {
    const { market, side, user, takerOnly } = this.state.filter
    const query = {
      market: typeof market === 'string' ? market : market?.join(','),
      side: side?.toUpperCase(),
      user,
      takerOnly,
      limit,
      offset,
    }
    return this.ctx.request({ service: 'data', path: '/trades', query, schema: TradesSchema, signal })
  }
}
