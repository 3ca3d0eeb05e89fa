/**
 * The base of every multi-page query: immutable state, explicit terminals (`iterate`, `for await`, `toArray`),
 * and no `then`, so forgetting a terminal is a type error rather than a silent extra request.
 */
import type { CallOptions, ClientContext } from './context.js'
import { MarketCursorError, MarketUsageError } from './errors.js'

/** Options of {@link PagedQuery.toArray}: the bound is required because some lists hold every market ever. */
export interface ToArrayOptions extends CallOptions {
  /** Stop after this many items (a positive integer). */
  readonly max: number
}

/** A query whose results span pages. Builder methods return a new query; the parent never changes. */
export abstract class PagedQuery<T, S extends object> implements AsyncIterable<T> {
  /** @internal */
  protected readonly ctx: ClientContext
  /** @internal */
  protected readonly state: Readonly<S>

  /** @internal Queries are made by the client (`pm.markets`, `pm.trades`, ...), not constructed directly. */
  constructor(ctx: ClientContext, state: S) {
    this.ctx = ctx
    this.state = Object.freeze({ ...state })
  }

  /** A copy of this query with `patch` applied to its state. */
  protected with(patch: Partial<S>): this {
    const Ctor = this.constructor as new (ctx: ClientContext, state: S) => this
    return new Ctor(this.ctx, { ...this.state, ...patch })
  }

  /** Yields the pages of the walk; `want` is how many more items the caller needs, so page sizes can shrink. */
  protected abstract pages(signal: AbortSignal | undefined, want: number): AsyncGenerator<readonly T[]>

  /** Every item across pages, fetched lazily as the loop asks for more. */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this.iterate()[Symbol.asyncIterator]()
  }

  /**
   * Like `for await (const x of query)`, with a signal.
   *
   * @example
   * ```ts
   * for await (const m of pm.markets.where({ closed: false }).iterate({ signal })) console.log(m.question)
   * ```
   */
  async *iterate(options: CallOptions = {}): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages(options.signal, Number.POSITIVE_INFINITY)) yield* page
  }

  /** Collects at most `max` items across pages, requesting no page past the bound. */
  async toArray(options: ToArrayOptions): Promise<T[]> {
    const { max } = options
    if (!Number.isInteger(max) || max < 1) {
      throw new MarketUsageError(`toArray({ max }) needs a positive integer bound, got ${String(max)}`)
    }
    const out: T[] = []
    for await (const page of this.pages(options.signal, max)) {
      for (const item of page) {
        out.push(item)
        if (out.length >= max) return out
      }
    }
    return out
  }
}

/**
 * Walks a cursor list, following `next` until there is none. A cursor the walk has already followed (the start
 * included) is a MarketCursorError: that is how a cursor sent under a name the service ignores shows (the first page
 * again, with the same cursor), and stopping quietly there would hide it.
 */
export async function* cursorPages<T>(
  endpoint: string,
  fetchPage: (cursor: string | undefined) => Promise<{ items: readonly T[]; next: string | undefined }>,
  start: string | undefined,
): AsyncGenerator<readonly T[]> {
  for await (const page of cursorWalk(endpoint, async (cursor) => {
    const { items, next } = await fetchPage(cursor)
    return { items, nextCursor: next }
  }, start)) {
    // A short or even empty page proves nothing (page sizes are clamped): only the cursor says we are done.
    if (page.items.length > 0) yield page.items
  }
}

/** One page of a cursor walk: its items, the cursor that fetched it, and the cursor of the next page. */
export interface CursorPage<T> extends Page<T> {
  /** The cursor this page was fetched with (`undefined` for the first page): resume here to read this page again. */
  readonly cursor: string | undefined
  /** What the service said about more pages; `nextCursor !== undefined` where it does not say. */
  readonly hasMore: boolean
}

/**
 * The guarded walk of every cursor list: yields each page with its cursors, ends when there is no next cursor, and
 * throws a MarketCursorError when a page says it has more (`hasMore`) but gives no cursor, or gives a cursor the walk
 * has already followed. Empty pages do not end it.
 */
export async function* cursorWalk<T>(
  endpoint: string,
  fetchPage: (cursor: string | undefined) => Promise<{ items: readonly T[]; nextCursor: string | undefined; hasMore?: boolean | undefined }>,
  start: string | undefined,
): AsyncGenerator<CursorPage<T>> {
  const seen = new Set<string>()
  if (start !== undefined) seen.add(start)
  let cursor = start
  for (let pages = 1; ; pages++) {
    const { items, nextCursor, hasMore } = await fetchPage(cursor)
    if (hasMore === true && nextCursor === undefined) throw new MarketCursorError('missing', endpoint, cursor, pages)
    if (nextCursor !== undefined && seen.has(nextCursor)) throw new MarketCursorError('repeated', endpoint, cursor, pages)
    yield { items, cursor, nextCursor, hasMore: hasMore ?? nextCursor !== undefined }
    if (nextCursor === undefined) return
    seen.add(nextCursor)
    cursor = nextCursor
  }
}

/** Walks an offset list, advancing by what actually came back (clamped pages); stops on an empty page or past `maxOffset`. */
export async function* offsetPages<T>(
  fetchPage: (offset: number) => Promise<readonly T[]>,
  start: number,
  maxOffset: number = Number.POSITIVE_INFINITY,
): AsyncGenerator<readonly T[]> {
  for (let offset = start; offset <= maxOffset; ) {
    const items = await fetchPage(offset)
    if (items.length === 0) return
    yield items
    offset += items.length
  }
}

/**
 * Up to `limit` items of an offset list from `start`, following further pages when the service clamps a page
 * short (a `limit(20).list()` that silently gave 5 was a trap); without a limit, one page of the service's default.
 */
export async function upTo<T>(
  fetchPage: (offset: number, size: number | undefined) => Promise<T[]>,
  start: number,
  limit: number | undefined,
  maxOffset?: number,
): Promise<T[]> {
  if (limit === undefined) return fetchPage(start, undefined)
  const out: T[] = []
  for await (const page of offsetPages((offset) => fetchPage(offset, limit - out.length), start, maxOffset)) {
    out.push(...page)
    if (out.length >= limit) return out.slice(0, limit)
  }
  return out
}

/** One page of a cursor list: its items and the cursor of the next page (`undefined` on the last). */
export interface Page<T> {
  readonly items: readonly T[]
  readonly nextCursor: string | undefined
}

/** Checks a builder's count argument early, where the mistake is, rather than as a 400 later. */
export function checkCount(name: string, n: number, min = 0): number {
  if (!Number.isInteger(n) || n < min) throw new MarketUsageError(`${name} must be an integer >= ${min}, got ${n}`)
  return n
}
