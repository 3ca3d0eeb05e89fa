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
 * A search. `list()` answers one page with events, tags and profiles; iteration yields the events of every page.
 *
 * @example
 * ```ts
 * const { events, totalResults } = await pm.search('bitcoin').status('active').list()
 * ```
 */
export class SearchQuery extends PagedQuery<Event, SearchState> {
  /** Results per type (events, tags, profiles) on one page. */
  limitPerType(n: number): this {
    return this.with({ limitPerType: checkCount('limitPerType', n, 1) })
  }

  /** The page {@link list} reads and iteration starts at (1-based). */
  page(n: number): this {
    return this.with({ page: checkCount('page', n, 1) })
  }

  /** Only active or closed events, or all. */
  status(status: EventsStatus): this {
    return this.with({ eventsStatus: status })
  }

  /** Keep the closed markets inside the events found. */
  keepClosedMarkets(keep = true): this {
    return this.with({ keepClosedMarkets: keep })
  }

  /** One page of results: one request. */
  list(options: CallOptions = {}): Promise<SearchResult> {
    return this.fetchPage(this.state.page ?? 1, options.signal)
  }

  protected async *pages(signal: AbortSignal | undefined): AsyncGenerator<readonly Event[]> {
    for (let page = this.state.page ?? 1; ; page++) {
      const result = await this.fetchPage(page, signal)
      if (result.events.length > 0) yield result.events
      if (!result.hasMore || result.events.length === 0) return
    }
  }

  private fetchPage(page: number, signal: AbortSignal | undefined): Promise<SearchResult> {
    const s = this.state
    const query = {
      q: s.q,
      limit_per_type: s.limitPerType,
      page,
      events_status: s.eventsStatus,
      keep_closed_markets: s.keepClosedMarkets,
    }
    return this.ctx.request({ service: 'gamma', path: '/public-search', query, schema: SearchSchema, signal })
  }
}
