/** `pm.search(text)`: the catalog's full-text search over events, tags and profiles. */
import * as v from 'valibot'
import type { CallOptions } from '../context.js'
import { PagedQuery, checkCount } from '../query.js'
import { GammaSearchSchema } from '../wire/gamma.js'
import { toSearchResult, type Event, type SearchResult } from './model.js'

const SearchSchema = v.pipe(GammaSearchSchema, v.transform(toSearchResult))

/** Which events a search returns. */
export type EventsStatus = 'active' | 'closed' | 'all'

/** Internal state of {@link SearchQuery}. */
export interface SearchState {
  readonly q: string
  readonly limitPerType?: number | undefined
  readonly page?: number | undefined
  readonly eventsStatus?: EventsStatus | undefined
  readonly keepClosedMarkets?: boolean | undefined
}

/**
 * A search. `list()` gives the events of one page, `page()` the whole page (events, tags, profiles, `hasMore`),
 * iteration the events of every page: the same names as on every other query.
 *
 * @example
 * ```ts
 * const { events, tags, totalResults } = await pm.search('bitcoin').status('active').page()
 * ```
 */
export class SearchQuery extends PagedQuery<Event, SearchState> {
  /** Results per type (events, tags, profiles) on one page. */
  limitPerType(n: number): this {
    return this.with({ limitPerType: checkCount('limitPerType', n, 1) })
  }

  /** The page number {@link list} and {@link page} read and iteration starts at (1-based). */
  pageNumber(n: number): this {
    return this.with({ page: checkCount('pageNumber', n, 1) })
  }

  /** Only active or closed events, or all. */
  status(status: EventsStatus): this {
    return this.with({ eventsStatus: status })
  }

  /** Keep the closed markets inside the events found. */
  keepClosedMarkets(keep = true): this {
    return this.with({ keepClosedMarkets: keep })
  }

  /** The events of one page: one request. */
  async list(options: CallOptions = {}): Promise<Event[]> {
    return [...(await this.page(options)).events]
  }

  /** One whole page of results (events, tags, profiles, `hasMore`, `totalResults`): one request. */
  page(options: CallOptions = {}): Promise<SearchResult> {
    return this.fetchPage(this.state.page ?? 1, undefined, options.signal)
  }

  protected async *pages(signal: AbortSignal | undefined, want: number): AsyncGenerator<readonly Event[]> {
    // The page-size hint, only when the walk starts at page 1: with another page number, another size would move it.
    const size = this.state.limitPerType ?? (this.state.page === undefined && Number.isFinite(want) ? Math.min(want, 50) : undefined)
    for (let page = this.state.page ?? 1; ; page++) {
      const result = await this.fetchPage(page, size, signal)
      if (result.events.length > 0) yield result.events
      if (!result.hasMore || result.events.length === 0) return
    }
  }

  private fetchPage(page: number, size: number | undefined, signal: AbortSignal | undefined): Promise<SearchResult> {
    const s = this.state
    const query = {
      q: s.q,
      limit_per_type: size ?? s.limitPerType,
      page,
      events_status: s.eventsStatus,
      keep_closed_markets: s.keepClosedMarkets,
    }
    return this.ctx.request({ service: 'gamma', path: '/public-search', query, schema: SearchSchema, signal })
  }
}
