/** `pm.token(id)`: everything the order-book service knows about one outcome token. */
import * as v from 'valibot'
import type { CallOptions, ClientContext } from '../context.js'
import { num } from '../wire/fields.js'
import {
  ClobBookSchema,
  ClobHistorySchema,
  ClobMidpointSchema,
  ClobPriceSchema,
  ClobSpreadSchema,
} from '../wire/clob.js'
import { fastBook } from './fast-book.js'
import { historyQuery, toBook, type Book, type HistoryParams, type PricePoint, type Side } from './model.js'

const PriceSchema = v.pipe(ClobPriceSchema, v.transform((w) => num(w.price)))
const MidSchema = v.pipe(ClobMidpointSchema, v.transform((w) => num(w.mid)))
const SpreadSchema = v.pipe(ClobSpreadSchema, v.transform((w) => num(w.spread)))
const BookSchema = v.pipe(ClobBookSchema, v.transform(toBook))
const HistorySchema = v.pipe(
  ClobHistorySchema,
  v.transform((w): PricePoint[] => (w.history ?? []).map((pt) => ({ t: pt.t, p: num(pt.p) }))),
)

/**
 * One outcome token on the order-book service. Cheap to make: it holds only the id.
 *
 * @example
 * ```ts
 * const yes = pm.token(market.outcomes[0]!)
 * const [book, mid] = await Promise.all([yes.book(), yes.midpoint()])
 * ```
 */
export class TokenHandle {
  /** The token id (a long decimal string; never a number). */
  readonly id: string
  readonly #ctx: ClientContext

  /** @internal Made by `pm.token(...)`. */
  constructor(ctx: ClientContext, id: string) {
    this.#ctx = ctx
    this.id = id
  }

  /** Best price for a side (`buy` by default). */
  price(side: Side = 'buy', options: CallOptions = {}): Promise<number> {
    return this.get('/price', { token_id: this.id, side: side.toUpperCase() }, PriceSchema, options)
  }

  /** Midpoint between the best bid and ask. */
  midpoint(options: CallOptions = {}): Promise<number> {
    return this.get('/midpoint', { token_id: this.id }, MidSchema, options)
  }

  /** Spread between the best ask and bid. */
  spread(options: CallOptions = {}): Promise<number> {
    return this.get('/spread', { token_id: this.id }, SpreadSchema, options)
  }

  /** The order book, levels best first; NotFoundError for closed markets and unknown tokens. */
  book(options: CallOptions = {}): Promise<Book> {
    return this.get('/book', { token_id: this.id }, BookSchema, options, fastBook)
  }

  /** Price history of this token (`{ interval }` or `{ start, end }`, `fidelity` in minutes). */
  history(params: HistoryParams, options: CallOptions = {}): Promise<PricePoint[]> {
    return this.get('/prices-history', historyQuery(this.id, params), HistorySchema, options)
  }

  private get<T>(
    path: string,
    query: Record<string, string | number | undefined>,
    schema: v.GenericSchema<unknown, T>,
    options: CallOptions,
    fast?: (body: unknown) => T | undefined,
  ): Promise<T> {
    return this.#ctx.request({ service: 'clob', path, query, schema, fast, signal: options.signal })
  }
}
