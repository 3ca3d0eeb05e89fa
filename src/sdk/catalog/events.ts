/** `pm.events`: catalog events with their markets, as a filtered list and by id or slug. */
import * as v from 'valibot'
import type { CallOptions } from '../context.js'
import type { Page } from '../query.js'
import { GammaEventSchema, GammaEventsKeysetSchema } from '../wire/gamma.js'
import { eventParams, type EventFilter, type EventOrderField } from './filters.js'
import { CatalogQuery, type CatalogSpec } from './list-query.js'
import { toEvent, type Event } from './model.js'

const EventSchema = v.pipe(GammaEventSchema, v.transform(toEvent))

const spec: CatalogSpec<Event, EventFilter> = {
  path: '/events',
  list: v.pipe(v.array(GammaEventSchema), v.transform((es) => es.map(toEvent))),
  keyset: v.pipe(
    GammaEventsKeysetSchema,
    v.transform((w): Page<Event> => ({ items: (w.events ?? []).map(toEvent), nextCursor: w.next_cursor || undefined })),
  ),
  params: async (_ctx, filter) => eventParams(filter),
}

/**
 * A query over catalog events. `closed` is sent explicitly and defaults to `false`.
 *
 * @example
 * ```ts
 * for await (const e of pm.events.where({ tag: 'politics' }).orderBy('volume')) console.log(e.title)
 * ```
 */
export class EventsQuery extends CatalogQuery<Event, EventFilter, EventOrderField> {
  protected spec(): CatalogSpec<Event, EventFilter> {
    return spec
  }

  /** One event by its catalog id; NotFoundError when unknown. */
  byId(id: string, options: CallOptions = {}): Promise<Event> {
    const path = `/events/${encodeURIComponent(id)}`
    return this.ctx.request({ service: 'gamma', path, schema: EventSchema, notFound: `No event has the id "${id}"`, ...options })
  }

  /** One event by slug; NotFoundError when unknown (the service answers `200 null`). */
  bySlug(slug: string, options: CallOptions = {}): Promise<Event> {
    const path = `/events/slug/${encodeURIComponent(slug)}`
    const notFound = `No event has the slug "${slug}"`
    return this.ctx.request({ service: 'gamma', path, schema: EventSchema, notFound, ...options })
  }
}
