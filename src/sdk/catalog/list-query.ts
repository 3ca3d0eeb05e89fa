/**
 * The shared builder of the catalog's market and event lists. Everything goes through the keyset lists by default
 * (`/markets/keyset`, `/events/keyset`: the offset lists were retired on 2026-05-01 and refuse deep offsets with a
 * 422): `list()`, `page()`, iteration and `toArray`. Only `list()` after an explicit `offset(n)` still sends an
 * offset, to the older offset list, which answers shallow offsets. `byId()`/`bySlug()` read one object.
 */
import type * as v from 'valibot'
import type { CallOptions, ClientContext } from '../context.js'
import type { QueryInit } from '../http.js'
import { PagedQuery, checkCount, cursorPages, upTo, type Page } from '../query.js'
import { tagIdOf } from './tags.js'
import type { CatalogFilter, SortDirection } from './filters.js'

/** Internal state of a catalog list query. */
export interface CatalogState<F, O> {
  readonly filter: F
  readonly order?: { readonly fields: readonly O[]; readonly ascending: boolean } | undefined
  readonly limit?: number | undefined
  readonly offset?: number | undefined
  readonly after?: string | undefined
}

/** What differs between the market and the event list. */
export interface CatalogSpec<T, F> {
  readonly path: '/markets' | '/events'
  /** Names the object in not-found messages. */
  readonly noun: 'market' | 'event'
  readonly one: v.GenericSchema<unknown, T>
  readonly list: v.GenericSchema<unknown, T[]>
  readonly keyset: v.GenericSchema<unknown, Page<T>>
  readonly params: (ctx: ClientContext, filter: F, signal: AbortSignal | undefined) => Promise<QueryInit>
  /** The list filters by tag slug itself (events), so an unknown slug would quietly match nothing. */
  readonly sendsTagSlug: boolean
}

/** Page size of walks: the service clamps `limit` to 100 anyway. */
const WALK_PAGE = 100

/** A list of catalog objects, filtered, sorted and paged. */
export abstract class CatalogQuery<T, F extends CatalogFilter, O extends string> extends PagedQuery<
  T,
  CatalogState<F, O>
> {
  /** @internal */
  protected abstract spec(): CatalogSpec<T, F>

  /** Adds filters (merged over the current ones; `undefined` leaves a filter unset). */
  where(filter: F): this {
    return this.with({ filter: { ...this.state.filter, ...filter } })
  }

  /** Sorts by one field or several (comma-joined), descending unless told otherwise. */
  orderBy(field: O | readonly O[], direction: SortDirection = 'desc'): this {
    const fields: readonly O[] = typeof field === 'string' ? [field] : field
    return this.with({ order: { fields, ascending: direction === 'asc' } })
  }

  /** Page size (the service silently clamps it, at 100 for markets). */
  limit(n: number): this {
    return this.with({ limit: checkCount('limit', n, 1) })
  }

  /**
   * Skips this many items: {@link list} then reads the older offset list from there (deep offsets are refused by the
   * service); iteration and `toArray` walk the keyset list and drop that many first (for a deep start, use
   * {@link after} with a cursor).
   */
  offset(n: number): this {
    return this.with({ offset: checkCount('offset', n) })
  }

  /** Starts {@link page} and iteration after this keyset cursor (a `nextCursor` of an earlier page). */
  after(cursor: string | undefined): this {
    return this.with({ after: cursor })
  }

  /** One object by its catalog id; NotFoundError when unknown. */
  byId(id: string, options: CallOptions = {}): Promise<T> {
    return this.one(`/${encodeURIComponent(id)}`, `id "${id}"`, options.signal)
  }

  /** One object by slug; NotFoundError when unknown (the service answers `200 null`). */
  bySlug(slug: string, options: CallOptions = {}): Promise<T> {
    return this.one(`/slug/${encodeURIComponent(slug)}`, `slug "${slug}"`, options.signal)
  }

  /**
   * Up to `limit` items (one page of the service's default size without `limit()`), read from the keyset list and
   * following its cursor when a page comes back short. After `offset(n)`, the older offset list is read instead,
   * from that offset (the service still answers shallow offsets; deep ones are a 422: walk with `after()` then).
   */
  async list(options: CallOptions = {}): Promise<T[]> {
    const { limit, offset } = this.state
    const base = await this.query(options.signal)
    if (offset !== undefined) {
      const { path, list } = this.spec()
      const fetch = (at: number, size: number | undefined) =>
        this.ctx.request({ service: 'gamma', path, query: { ...base, limit: size, offset: at }, schema: list, signal: options.signal })
      return this.checkTag(await upTo(fetch, offset, limit), options.signal)
    }
    if (limit === undefined) return this.checkTag([...(await this.keysetPage(base, this.state.after, undefined, options.signal)).items], options.signal)
    const out: T[] = []
    for await (const page of this.pages(options.signal, limit)) out.push(...page)
    return out.slice(0, limit)
  }

  /** One page of the keyset list: items and the cursor of the next page (`undefined` after the last). */
  async page(options: CallOptions = {}): Promise<Page<T>> {
    const page = await this.keysetPage(await this.query(options.signal), this.state.after, this.state.limit, options.signal)
    await this.checkTag(page.items, options.signal)
    return page
  }

  protected async *pages(signal: AbortSignal | undefined, want: number): AsyncGenerator<readonly T[]> {
    const query = await this.query(signal)
    let skip = this.state.offset ?? 0
    let left = want
    let first = true
    yield* cursorPages(`gamma GET ${this.spec().path}/keyset`, async (cursor) => {
      // The page-size hint: no more than the caller still wants (plus what is to be skipped).
      const page = await this.keysetPage(query, cursor, Math.min(this.state.limit ?? WALK_PAGE, left + skip), signal)
      if (first) await this.checkTag(page.items, signal)
      first = false
      const dropped = Math.min(skip, page.items.length)
      skip -= dropped
      const items = dropped === 0 ? page.items : page.items.slice(dropped)
      left -= items.length
      return { items, next: left > 0 ? page.nextCursor : undefined }
    }, this.state.after)
  }

  // Markets resolve the tag slug first (a NotFoundError when unknown); events send it as is, so an empty answer
  // may hide a typo: the same NotFoundError is raised then, at the cost of a lookup on empty answers only.
  private async checkTag<I>(items: I, signal: AbortSignal | undefined): Promise<I> {
    const { tag, tagId } = this.state.filter
    if (this.spec().sendsTagSlug && Array.isArray(items) && items.length === 0 && tag !== undefined && tagId === undefined) {
      await tagIdOf(this.ctx, tag, signal)
    }
    return items
  }

  private one(suffix: string, what: string, signal: AbortSignal | undefined): Promise<T> {
    const { path, one, noun } = this.spec()
    return this.ctx.request({ service: 'gamma', path: path + suffix, schema: one, notFound: `No ${noun} has the ${what}`, signal })
  }

  private keysetPage(query: QueryInit, after: string | undefined, limit: number | undefined, signal?: AbortSignal) {
    const spec = this.spec()
    const path = `${spec.path}/keyset`
    // The cursor comes out as `next_cursor` but must go back as `after_cursor`: under any other name the service
    // ignores it and answers the first page again (the walk's repeated-cursor guard would then stop it).
    return this.ctx.request({ service: 'gamma', path, query: { ...query, limit, after_cursor: after }, schema: spec.keyset, signal })
  }

  private async query(signal: AbortSignal | undefined): Promise<QueryInit> {
    const { order } = this.state
    const sort = order ? { order: order.fields.join(','), ascending: order.ascending } : {}
    return { ...(await this.spec().params(this.ctx, this.state.filter, signal)), ...sort }
  }
}
