/**
 * `pm.clobMarkets`: the order-book service's list of every market ever (hundreds of thousands). The cursor travels
 * in `next_cursor` both ways and the last page answers `LTE=`; iterate lazily and bound it with `toArray({ max })`.
 */
import * as v from 'valibot'
import type { CallOptions } from '../context.js'
import { PagedQuery, cursorPages, type Page } from '../query.js'
import { ClobMarketsPageSchema } from '../wire/clob.js'
import { toClobMarket, type ClobMarket } from './model.js'

/** The cursor the service answers on its last page. */
export const END_CURSOR = 'LTE='

const PageSchema = v.pipe(
  ClobMarketsPageSchema,
  v.transform(
    (w): Page<ClobMarket> => ({
      items: (w.data ?? []).map(toClobMarket),
      nextCursor: w.next_cursor && w.next_cursor !== END_CURSOR ? w.next_cursor : undefined,
    }),
  ),
)

/** Internal state of {@link ClobMarketsQuery}. */
export interface ClobMarketsState {
  readonly after?: string | undefined
}

/** The order-book service's market list; the page size is the service's own. */
export class ClobMarketsQuery extends PagedQuery<ClobMarket, ClobMarketsState> {
  /** Starts at this cursor (a `nextCursor` of an earlier page). */
  after(cursor: string | undefined): this {
    return this.with({ after: cursor })
  }

  /** One page: its markets and the next cursor (`undefined` after the last page). */
  page(options: CallOptions = {}): Promise<Page<ClobMarket>> {
    return this.fetchPage(this.state.after, options.signal)
  }

  /** The markets of one page. */
  async list(options: CallOptions = {}): Promise<ClobMarket[]> {
    return [...(await this.page(options)).items]
  }

  protected pages(signal: AbortSignal | undefined): AsyncGenerator<readonly ClobMarket[]> {
    return cursorPages('clob GET /markets', async (cursor) => {
      const page = await this.fetchPage(cursor, signal)
      return { items: page.items, next: page.nextCursor }
    }, this.state.after)
  }

  private fetchPage(cursor: string | undefined, signal: AbortSignal | undefined): Promise<Page<ClobMarket>> {
    const query = { next_cursor: cursor }
    return this.ctx.request({ service: 'clob', path: '/markets', query, schema: PageSchema, signal })
  }
}
