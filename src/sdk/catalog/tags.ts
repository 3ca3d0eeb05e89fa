/** `pm.tags`: the catalog's tags, an offset list, and the lookup of one tag by slug. */
import * as v from 'valibot'
import type { CallOptions, ClientContext } from '../context.js'
import { GammaTagSchema } from '../wire/gamma.js'
import { PagedQuery, checkCount, offsetPages, upTo } from '../query.js'
import { toTag, type Tag } from './model.js'

const TagListSchema = v.pipe(v.array(GammaTagSchema), v.transform((tags) => tags.map(toTag)))
const TagSchema = v.pipe(GammaTagSchema, v.transform(toTag))

/** Internal state of {@link TagsQuery}. */
export interface TagsState {
  readonly limit?: number | undefined
  readonly offset?: number | undefined
}

/** The tag list (`/tags`, capped at 100 a page). */
export class TagsQuery extends PagedQuery<Tag, TagsState> {
  /** Page size (capped at 100 by the service). */
  limit(n: number): this {
    return this.with({ limit: checkCount('limit', n, 1) })
  }

  /** Where {@link list} and iteration start. */
  offset(n: number): this {
    return this.with({ offset: checkCount('offset', n) })
  }

  /** Up to `limit` tags from `offset` (more requests when the service clamps a page short). */
  list(options: CallOptions = {}): Promise<Tag[]> {
    return upTo((at, size) => this.fetchPage(at, size, options.signal), this.state.offset ?? 0, this.state.limit)
  }

  /** One tag by slug (the value of tag filters); NotFoundError when there is none. */
  bySlug(slug: string, options: CallOptions = {}): Promise<Tag> {
    return this.ctx.request({
      service: 'gamma',
      path: `/tags/slug/${encodeURIComponent(slug)}`,
      schema: TagSchema,
      notFound: `No tag has the slug "${slug}"`,
      signal: options.signal,
    })
  }

  protected pages(signal: AbortSignal | undefined, want: number): AsyncGenerator<readonly Tag[]> {
    const size = Math.min(this.state.limit ?? 100, want)
    return offsetPages((offset) => this.fetchPage(offset, size, signal), this.state.offset ?? 0)
  }

  private fetchPage(offset: number, limit: number | undefined, signal: AbortSignal | undefined): Promise<Tag[]> {
    return this.ctx.request({ service: 'gamma', path: '/tags', query: { limit, offset }, schema: TagListSchema, signal })
  }
}

/** Resolves a tag slug into its id, for the lists that only filter by id. */
export async function tagIdOf(ctx: ClientContext, slug: string, signal: AbortSignal | undefined): Promise<string> {
  const tag = await new TagsQuery(ctx, {}).bySlug(slug, { signal })
  return tag.id
}
