/** `pm.market(m)`: the linking flow from a catalog market to its tokens, history, trades and open interest. */
import type { Market } from './catalog/model.js'
import type { HistoryParams, PricePoint } from './clob/model.js'
import { TokenHandle } from './clob/token.js'
import type { CallOptions, ClientContext } from './context.js'
import { openInterest } from './data/open-interest.js'
import { TradesQuery } from './data/trades.js'
import { MarketUsageError } from './errors.js'

/**
 * A catalog market joined to the order-book and trades services.
 *
 * @example
 * ```ts
 * const m = pm.market(await pm.markets.bySlug('will-1-fed-rate-cut-happen-in-2025'))
 * const [book, history, oi] = await Promise.all([m.yes.book(), m.history({ interval: '1w' }), m.openInterest()])
 * ```
 */
export class MarketHandle {
  /** The catalog market. */
  readonly market: Market
  readonly #ctx: ClientContext

  /** @internal Made by `pm.market(...)`. */
  constructor(ctx: ClientContext, market: Market) {
    this.#ctx = ctx
    this.market = market
  }

  /** The Yes token; MarketUsageError on a market whose outcomes are not Yes and No, or that has no order book. */
  get yes(): TokenHandle {
    return this.outcome(this.#binary('yes'))
  }

  /** The No token; MarketUsageError on a market whose outcomes are not Yes and No, or that has no order book. */
  get no(): TokenHandle {
    return this.outcome(this.#binary('no'))
  }

  /** True when every outcome has an order-book token: filter with it before `Promise.all` over many markets. */
  get hasOrderBook(): boolean {
    const { outcomes } = this.market
    return outcomes.length > 0 && outcomes.every((o) => o.tokenId !== null)
  }

  /** The tokens of the outcomes that have one, in outcome order (`[]` for a market without an order book). */
  get tokens(): readonly TokenHandle[] {
    return this.market.outcomes.flatMap((o) => (o.tokenId === null ? [] : [new TokenHandle(this.#ctx, o.tokenId)]))
  }

  /** The token of an outcome, by index or by label (case-insensitive); MarketUsageError if it has no token. */
  outcome(which: number | string): TokenHandle {
    const { outcomes, slug } = this.market
    const found =
      typeof which === 'number'
        ? outcomes[which]
        : outcomes.find((o) => o.label.toLowerCase() === which.toLowerCase())
    if (found === undefined) {
      const labels = outcomes.map((o) => o.label).join(', ') || 'none'
      throw new MarketUsageError(`Market "${slug}" has no outcome ${JSON.stringify(which)} (outcomes: ${labels})`)
    }
    if (found.tokenId === null) {
      throw new MarketUsageError(`Outcome "${found.label}" of market "${slug}" has no order-book token`)
    }
    return new TokenHandle(this.#ctx, found.tokenId)
  }

  /** Price history of the Yes token (the service keys history by token); on other markets use `outcome(o).history()`. */
  history(params: HistoryParams, options: CallOptions = {}): Promise<PricePoint[]> {
    return this.yes.history(params, options)
  }

  /** Trades of this market (a query: add `.limit()`, `.where({ side })`, a terminal). */
  trades(): TradesQuery {
    return new TradesQuery(this.#ctx, { filter: { market: this.#conditionId() } })
  }

  /** Open interest of this market in USDC; `null` when the service has no figure for it. */
  async openInterest(options: CallOptions = {}): Promise<number | null> {
    const id = this.#conditionId()
    const rows = await openInterest(this.#ctx, id, options)
    return rows.find((r) => r.market.toLowerCase() === id.toLowerCase())?.value ?? null
  }

  // Outcome 0 and 1 of any market would be a silent guess: only a market whose outcomes are Yes and No has them.
  #binary(which: 'yes' | 'no'): number {
    const labels = this.market.outcomes.map((o) => o.label)
    if (labels.length === 2 && labels[0]?.toLowerCase() === 'yes' && labels[1]?.toLowerCase() === 'no') return which === 'yes' ? 0 : 1
    const listed = labels.join(', ') || 'none'
    throw new MarketUsageError(
      `Market "${this.market.slug}" is not a Yes/No market (outcomes: ${listed}): use outcome(label) or outcome(index) instead of .${which}`,
    )
  }

  // Without a condition id the trades service would answer for every market, not for none.
  #conditionId(): string {
    const { conditionId, slug } = this.market
    if (conditionId === '') throw new MarketUsageError(`Market "${slug}" has no condition id: it has no trades or open interest`)
    return conditionId
  }
}
