/** `pm.events`: catalog events with their markets, as a filtered list and by id or slug. */
import * as v from 'valibot'
import type { Page } from '../query.js'
import { GammaEventSchema, GammaEventsKeysetSchema } from '../wire/gamma.js'
import { eventParams, type EventFilter, type EventOrderField } from './filters.js'
import { CatalogQuery, type CatalogSpec } from './list-query.js'
import { toEvent, type Event } from './model.js'

const spec: CatalogSpec<Event, EventFilter> = {
  path: '/events',
  sendsTagSlug: true,
  noun: 'event',
  one: v.pipe(GammaEventSchema, v.transform(toEvent)),
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
}
