/** Typed filters of the catalog lists and their translation into the services' query parameters. */
import type { QueryInit } from '../http.js'

/** A date bound: a Date or ISO text. */
export type DateBound = Date | string

/** Filters shared by `/markets` and `/events` (and their keyset forms). */
export interface CatalogFilter {
  readonly active?: boolean | undefined
  readonly closed?: boolean | undefined
  readonly archived?: boolean | undefined
  /** A tag slug such as `politics` (see `pm.tags`). */
  readonly tag?: string | undefined
  /** A tag id; faster than `tag` for markets, which otherwise resolve the slug first. */
  readonly tagId?: string | undefined
  /** Include objects of tags related to `tag`/`tagId`. */
  readonly relatedTags?: boolean | undefined
  /** One slug or several. */
  readonly slug?: string | readonly string[] | undefined
  /** Catalog ids. */
  readonly ids?: readonly string[] | undefined
  readonly volumeMin?: number | undefined
  readonly volumeMax?: number | undefined
  readonly liquidityMin?: number | undefined
  readonly liquidityMax?: number | undefined
  readonly startDateMin?: DateBound | undefined
  readonly startDateMax?: DateBound | undefined
  readonly endDateMin?: DateBound | undefined
  readonly endDateMax?: DateBound | undefined
}

/** Filters of market lists. */
export interface MarketFilter extends CatalogFilter {
  /** Condition ids (`0x...`). */
  readonly conditionIds?: readonly string[] | undefined
  /** Order-book token ids. */
  readonly tokenIds?: readonly string[] | undefined
}

/** Filters of event lists. `closed` defaults to `false`: the service returns closed events when it is omitted. */
export type EventFilter = CatalogFilter

/** Fields markets can be sorted by. */
export type MarketOrderField =
  | 'volume'
  | 'volumeNum'
  | 'volume24hr'
  | 'liquidity'
  | 'liquidityNum'
  | 'createdAt'
  | 'updatedAt'
  | 'startDate'
  | 'endDate'

/** Fields events can be sorted by. */
export type EventOrderField =
  | 'volume'
  | 'volume24hr'
  | 'liquidity'
  | 'openInterest'
  | 'createdAt'
  | 'updatedAt'
  | 'startDate'
  | 'endDate'

/** Sort direction. */
export type SortDirection = 'asc' | 'desc'

const iso = (d: DateBound | undefined): string | undefined => (d instanceof Date ? d.toISOString() : d)
const list = (x: string | readonly string[] | undefined): readonly string[] | undefined =>
  x === undefined ? undefined : typeof x === 'string' ? [x] : x

/** Parameters common to both lists; `amountKeys` differ (`volume_num_min` on markets, `volume_min` on events). */
export function catalogParams(f: CatalogFilter, amountPrefix: { volume: string; liquidity: string }): QueryInit {
  return {
    active: f.active,
    closed: f.closed,
    archived: f.archived,
    tag_id: f.tagId,
    related_tags: f.relatedTags,
    slug: list(f.slug),
    id: f.ids,
    [`${amountPrefix.volume}_min`]: f.volumeMin,
    [`${amountPrefix.volume}_max`]: f.volumeMax,
    [`${amountPrefix.liquidity}_min`]: f.liquidityMin,
    [`${amountPrefix.liquidity}_max`]: f.liquidityMax,
    start_date_min: iso(f.startDateMin),
    start_date_max: iso(f.startDateMax),
    end_date_min: iso(f.endDateMin),
    end_date_max: iso(f.endDateMax),
  }
}

/** The parameters of a market list (the tag slug is resolved by the caller into `tag_id`). */
export function marketParams(f: MarketFilter): QueryInit {
  return {
    ...catalogParams(f, { volume: 'volume_num', liquidity: 'liquidity_num' }),
    condition_ids: f.conditionIds,
    clob_token_ids: f.tokenIds,
  }
}

/** The parameters of an event list; `closed` is always sent (omitting it has returned closed events). */
export function eventParams(f: EventFilter): QueryInit {
  return {
    ...catalogParams(f, { volume: 'volume', liquidity: 'liquidity' }),
    closed: f.closed ?? false,
    tag_slug: f.tag,
  }
}
