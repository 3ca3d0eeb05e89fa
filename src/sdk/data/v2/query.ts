/**
 * The base of every paged Data API v2 read: cursor-only (`limit`, then `cursor=<next_cursor>` with the same filters
 * on every page), walked by the guarded {@link cursorWalk} (a page that says it has more but gives no cursor, or
 * repeats one, is a MarketCursorError), and each page exposed with its cursors so a caller (an export) can resume.
 */
import * as v from 'valibot'
import type { CallOptions } from '../../context.js'
import { MarketUsageError } from '../../errors.js'
import type { QueryInit } from '../../http.js'
import { PagedQuery, cursorWalk, type CursorPage } from '../../query.js'
import { pagedSchema } from '../../wire/data-v2.js'

/** The most rows one v2 page may ask for; over it the service answers 400 (it does not clamp). */
export const MAX_V2_PAGE = 1000
/** The most distinct ids one `condition` or `event_id` list may hold. */
export const MAX_V2_IDS = 20

/** A page of a v2 read, as the service described it. */
export interface V2PageOf<T> {
  readonly items: readonly T[]
  readonly nextCursor: string | undefined
  readonly hasMore: boolean
}

/** The schema of a paged answer whose rows become `T` (typed this way so valibot's types stay out of the public ones). */
export type V2Schema<T> = v.GenericSchema<unknown, V2PageOf<T>>

/** Builds the schema of a paged answer whose rows become `T`; call it once per module. */
export function v2Page<R extends v.GenericSchema, T>(row: R, convert: (w: v.InferOutput<R>) => T) {
  return v.pipe(
    pagedSchema(row),
    v.transform((w): V2PageOf<T> => ({
      items: w.data.map((r) => convert(r)),
      nextCursor: w.pagination.next_cursor ?? undefined,
      hasMore: w.pagination.has_more,
    })),
  )
}

/** Internal state of a v2 query: its filter, page size and starting cursor. */
export interface V2State<F> {
  readonly filter: F
  readonly limit?: number | undefined
  readonly after?: string | undefined
}

/** A paged v2 read. Builders return a new query; `page()`, `eachPage()`, `list()`, `for await` and `toArray` read. */
export abstract class V2Query<T, F extends object> extends PagedQuery<T, V2State<F>> {
  /** @internal `/v2/trades` */
  protected abstract readonly path: string
  /** @internal The answer's schema (built once per module). */
  protected abstract readonly schema: V2Schema<T>
  /** @internal The filter as query parameters; throws MarketUsageError for a filter the service would refuse or misread. */
  protected abstract params(filter: F): QueryInit

  /** Adds filters (merged over the current ones; `undefined` leaves one unset). */
  where(filter: F): this {
    return this.with({ filter: { ...this.state.filter, ...filter } })
  }

  /** Rows per page, 1 to 1,000 (the service refuses more with a 400, so this refuses it first). */
  limit(n: number): this {
    if (!Number.isInteger(n) || n < 1 || n > MAX_V2_PAGE) throw new MarketUsageError(`limit must be an integer from 1 to ${MAX_V2_PAGE}, got ${n}`)
    return this.with({ limit: n })
  }

  /** Starts at this cursor (a `nextCursor` of an earlier page): resumes a walk where it stopped. */
  after(cursor: string | undefined): this {
    return this.with({ after: cursor })
  }

  /** One request: the page at the starting cursor, with its `nextCursor` and `hasMore`. */
  async page(options: CallOptions = {}): Promise<CursorPage<T>> {
    const query = this.params(this.state.filter)
    const page = await this.fetchPage(query, this.state.after, this.state.limit, options.signal)
    return { ...page, cursor: this.state.after }
  }

  /**
   * Every page from the starting cursor, each with the cursor that fetched it and the next one (save `nextCursor`
   * after handling a page to resume there with {@link after}). Throws MarketCursorError on a missing or repeated cursor.
   *
   * @example
   * ```ts
   * for await (const page of pm.v2.trades.where({ condition: id }).limit(1000).eachPage()) save(page.items, page.nextCursor)
   * ```
   */
  eachPage(options: CallOptions = {}): AsyncGenerator<CursorPage<T>> {
    return this.walk(options.signal, Number.POSITIVE_INFINITY)
  }

  /** Up to `limit` rows (one page of the service's default size without `limit()`). */
  async list(options: CallOptions = {}): Promise<T[]> {
    const out: T[] = []
    const max = this.state.limit
    for await (const page of this.walk(options.signal, max ?? Number.POSITIVE_INFINITY)) {
      out.push(...page.items)
      if (max === undefined || out.length >= max) break
    }
    return max === undefined ? out : out.slice(0, max)
  }

  protected async *pages(signal: AbortSignal | undefined, want: number): AsyncGenerator<readonly T[]> {
    for await (const page of this.walk(signal, want)) if (page.items.length > 0) yield page.items
  }

  private async *walk(signal: AbortSignal | undefined, want: number): AsyncGenerator<CursorPage<T>> {
    // Checked before the first request: a filter the service would refuse never costs one.
    const query = this.params(this.state.filter)
    let left = want
    const size = this.state.limit ?? (Number.isFinite(want) ? Math.min(want, MAX_V2_PAGE) : undefined)
    for await (const page of cursorWalk(`data GET ${this.path}`, (cursor) => this.fetchPage(query, cursor, size, signal), this.state.after)) {
      yield page
      left -= page.items.length
      if (left <= 0) return
    }
  }

  private fetchPage(query: QueryInit, cursor: string | undefined, limit: number | undefined, signal: AbortSignal | undefined): Promise<V2PageOf<T>> {
    // The same filters on every page: a feed's cursor holds only the seek anchor, and a changed filter re-anchors.
    return this.ctx.request({ service: 'data', path: this.path, query: { ...query, limit, cursor }, schema: this.schema, signal })
  }
}

/**
 * A `condition` or `event_id` list as the service takes it: one comma-separated value of at most 20 distinct ids
 * (deduplicated case-insensitively, the first spelling kept, as the service counts them). An empty list or id is
 * refused: the service would read it as absent and widen the read to everything.
 */
export function idList(name: string, ids: string | readonly string[] | undefined): string | undefined {
  if (ids === undefined) return undefined
  const list = typeof ids === 'string' ? [ids] : ids
  const seen = new Map<string, string>()
  for (const id of list) {
    if (typeof id !== 'string' || id.trim() === '') throw new MarketUsageError(`${name} holds an empty id: an empty filter would read everything`)
    const key = id.trim().toLowerCase()
    if (!seen.has(key)) seen.set(key, id.trim())
  }
  if (seen.size === 0) throw new MarketUsageError(`${name} is an empty list: an empty filter would read everything`)
  if (seen.size > MAX_V2_IDS) {
    throw new MarketUsageError(`${name} holds ${seen.size} distinct ids; the service takes at most ${MAX_V2_IDS} per request (split the list)`)
  }
  return [...seen.values()].join(',')
}

/** A wallet filter: refused when empty, which the service would read as "every wallet". */
export function wallet(name: string, user: string | undefined): string | undefined {
  if (user === undefined) return undefined
  if (typeof user !== 'string' || user.trim() === '') throw new MarketUsageError(`${name} is empty: an empty filter would read every wallet`)
  return user.trim()
}

/** A time bound in unix seconds from seconds or a `Date`; the service takes whole seconds. */
export function seconds(at: number | Date | undefined): number | undefined {
  if (at === undefined) return undefined
  const s = at instanceof Date ? Math.floor(at.getTime() / 1000) : Math.floor(at)
  if (!Number.isFinite(s) || s < 0) throw new MarketUsageError(`a time bound must be unix seconds or a Date, got ${String(at)}`)
  return s
}

/** `start`/`end` of a window, checked for order. */
export function windowParams(start: number | Date | undefined, end: number | Date | undefined): { start?: number; end?: number } {
  const s = seconds(start)
  const e = seconds(end)
  if (s !== undefined && e !== undefined && e < s) throw new MarketUsageError(`the window ends (${e}) before it starts (${s})`)
  return { ...(s === undefined ? {} : { start: s }), ...(e === undefined ? {} : { end: e }) }
}

/** The size floor `filter_type` + `filter_amount`: in shares or in USDC, not both. */
export function sizeFloor(minShares: number | undefined, minCash: number | undefined): { filter_type?: 'TOKENS' | 'CASH'; filter_amount?: number } {
  if (minShares !== undefined && minCash !== undefined) throw new MarketUsageError('minShares and minCash cannot be combined: the service takes one size floor')
  const amount = minShares ?? minCash
  if (amount === undefined) return {}
  if (!Number.isFinite(amount) || amount < 0) throw new MarketUsageError(`a size floor must be a number >= 0, got ${amount}`)
  return { filter_type: minShares === undefined ? 'CASH' : 'TOKENS', filter_amount: amount }
}
