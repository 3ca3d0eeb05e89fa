/**
 * The catalog's objects as the SDK gives them: encoded lists decoded once, prices and amounts as numbers, dates as
 * Dates, ids as strings, and the untouched wire object in `raw` (unknown fields included).
 */
import { decodeList, toDate, toNumber } from '../wire/fields.js'
import type { GammaEventWire, GammaMarketWire, GammaSearchWire, GammaTagWire } from '../wire/gamma.js'

/** One outcome of a market, in the catalog's order (index 0 is Yes on binary markets). */
export interface Outcome {
  readonly label: string
  /** Last price as a probability in [0, 1]; `null` when the catalog has none. */
  readonly price: number | null
  /** The order-book token of this outcome (a long decimal string); `null` on markets without an order book. */
  readonly tokenId: string | null
}

/** A catalog market. */
export interface Market {
  readonly id: string
  readonly slug: string
  readonly question: string
  /** `0x` + 64 hex: the key of trades and open interest. */
  readonly conditionId: string
  readonly description: string | null
  readonly category: string | null
  readonly active: boolean
  readonly closed: boolean
  /** Every outcome (binary markets have two; some have more; odd ones none). */
  readonly outcomes: readonly Outcome[]
  readonly volume: number | null
  readonly liquidity: number | null
  readonly volume24hr: number | null
  readonly bestBid: number | null
  readonly bestAsk: number | null
  readonly spread: number | null
  readonly lastTradePrice: number | null
  readonly startDate: Date | null
  readonly endDate: Date | null
  readonly createdAt: Date | null
  readonly closedTime: Date | null
  readonly umaResolutionStatuses: readonly string[]
  /** The market as the service sent it, with ids as strings. */
  readonly raw: GammaMarketWire
}

/** A catalog tag; `slug` is the value of tag filters. */
export interface Tag {
  readonly id: string
  readonly label: string
  readonly slug: string
  readonly raw: GammaTagWire
}

/** A catalog event and its markets. */
export interface Event {
  readonly id: string
  readonly slug: string
  readonly title: string
  readonly description: string | null
  readonly category: string | null
  readonly active: boolean
  readonly closed: boolean
  readonly volume: number | null
  readonly liquidity: number | null
  readonly openInterest: number | null
  readonly startDate: Date | null
  readonly endDate: Date | null
  readonly tags: readonly Tag[]
  readonly markets: readonly Market[]
  readonly raw: GammaEventWire
}

/** A search profile (a trader); only the common fields are typed, the rest is in `raw`. */
export interface Profile {
  readonly id: string | null
  readonly name: string | null
  readonly raw: Readonly<Record<string, unknown>>
}

/** The answer of a search. */
export interface SearchResult {
  readonly events: readonly Event[]
  readonly tags: readonly Tag[]
  readonly profiles: readonly Profile[]
  readonly hasMore: boolean
  readonly totalResults: number | null
}

/** Turns a wire market into a {@link Market}. */
export function toMarket(w: GammaMarketWire): Market {
  const labels = decodeList(w.outcomes)
  const prices = decodeList(w.outcomePrices)
  const tokens = decodeList(w.clobTokenIds)
  const count = Math.max(labels.length, prices.length, tokens.length)
  const outcomes = Array.from({ length: count }, (_, i): Outcome => ({
    label: labels[i] ?? `Outcome ${i + 1}`,
    price: toNumber(prices[i]),
    tokenId: tokens[i] ?? null,
  }))
  return {
    id: w.id ?? '',
    slug: w.slug ?? '',
    question: w.question ?? '',
    conditionId: w.conditionId ?? '',
    description: w.description || null,
    category: w.category || null,
    active: w.active ?? false,
    closed: w.closed ?? false,
    outcomes,
    volume: toNumber(w.volumeNum) ?? toNumber(w.volume),
    liquidity: toNumber(w.liquidityNum) ?? toNumber(w.liquidity),
    volume24hr: toNumber(w.volume24hr),
    bestBid: toNumber(w.bestBid),
    bestAsk: toNumber(w.bestAsk),
    spread: toNumber(w.spread),
    lastTradePrice: toNumber(w.lastTradePrice),
    startDate: toDate(w.startDate),
    endDate: toDate(w.endDate),
    createdAt: toDate(w.createdAt),
    closedTime: toDate(w.closedTime),
    umaResolutionStatuses: decodeList(w.umaResolutionStatuses),
    raw: w,
  }
}

/** Turns a wire tag into a {@link Tag}. */
export function toTag(w: GammaTagWire): Tag {
  return { id: w.id, label: w.label ?? '', slug: w.slug ?? '', raw: w }
}

/** Turns a wire event into an {@link Event}. */
export function toEvent(w: GammaEventWire): Event {
  return {
    id: w.id,
    slug: w.slug ?? '',
    title: w.title ?? '',
    description: w.description || null,
    category: w.category || null,
    active: w.active ?? false,
    closed: w.closed ?? false,
    volume: toNumber(w.volume),
    liquidity: toNumber(w.liquidity),
    openInterest: toNumber(w.openInterest),
    startDate: toDate(w.startDate),
    endDate: toDate(w.endDate),
    tags: (w.tags ?? []).map(toTag),
    markets: (w.markets ?? []).map(toMarket),
    raw: w,
  }
}

/** Turns a wire search answer into a {@link SearchResult}. */
export function toSearchResult(w: GammaSearchWire): SearchResult {
  return {
    events: (w.events ?? []).map(toEvent),
    tags: (w.tags ?? []).map(toTag),
    profiles: (w.profiles ?? []).map((p) => ({ id: p.id ?? null, name: p.name ?? null, raw: p })),
    hasMore: w.pagination?.hasMore ?? false,
    totalResults: w.pagination?.totalResults ?? null,
  }
}
