/**
 * What keeps a tool's answer small enough for an agent's context: compact shapes of the SDK's objects (no `raw`
 * wire copies), capped arrays and clipped text, and a ceiling on the whole answer.
 */
import type { Event, Market, Outcome } from '../catalog/model.js'

/** The most characters one answer may hold; the caps below keep real answers far under it. */
export const MAX_ANSWER_CHARS = 60_000
/** The most characters of a description. */
export const MAX_DESCRIPTION_CHARS = 1_000
/** The most characters of a title, question or label. */
export const MAX_TITLE_CHARS = 300
/** The most outcomes shown of one market (multi-outcome markets have a few dozen at most). */
export const MAX_OUTCOMES = 40
/** The most markets shown inside one event found by a search. */
export const MAX_MARKETS_PER_EVENT = 8

/** `text` cut to `max` characters, marked with an ellipsis when cut. */
export function clip(text: string, max: number): string
export function clip(text: string | null, max: number): string | null
export function clip(text: string | null, max: number): string | null {
  if (text === null || text.length <= max) return text
  return `${text.slice(0, max - 1)}…`
}

/** The first `max` items, and how many there were: an agent is told what it did not see. */
export function capped<T, R>(items: readonly T[], max: number, shape: (item: T) => R): { items: R[]; total: number } {
  return { items: items.slice(0, max).map(shape), total: items.length }
}

/** The JSON text of an answer, refused past {@link MAX_ANSWER_CHARS} rather than cut mid-value. */
export function answerText(value: unknown): string {
  const text = JSON.stringify(value)
  if (text.length > MAX_ANSWER_CHARS) {
    throw new Error(`the answer is ${text.length} characters, over the ${MAX_ANSWER_CHARS} a tool returns: ask for fewer items`)
  }
  return text
}

const outcome = (o: Outcome) => ({ label: clip(o.label, MAX_TITLE_CHARS), price: o.price, tokenId: o.tokenId })

/** A market in a list: what an agent needs to pick it and to call `book` or `price_history` on it. */
export function marketSummary(m: Market) {
  const outcomes = capped(m.outcomes, MAX_OUTCOMES, outcome)
  return {
    id: m.id,
    slug: m.slug,
    question: clip(m.question, MAX_TITLE_CHARS),
    conditionId: m.conditionId,
    active: m.active,
    closed: m.closed,
    outcomes: outcomes.items,
    ...(outcomes.total > outcomes.items.length ? { outcomesTotal: outcomes.total } : {}),
    volume: m.volume,
    volume24hr: m.volume24hr,
    liquidity: m.liquidity,
    bestBid: m.bestBid,
    bestAsk: m.bestAsk,
    lastTradePrice: m.lastTradePrice,
    endDate: m.endDate,
  }
}

/** One market in full: the summary with its description (clipped) and dates. */
export function marketDetail(m: Market) {
  return {
    ...marketSummary(m),
    description: clip(m.description, MAX_DESCRIPTION_CHARS),
    category: m.category,
    spread: m.spread,
    startDate: m.startDate,
    closedTime: m.closedTime,
    resolutionStatuses: m.umaResolutionStatuses.slice(0, 10),
  }
}

/** An event found by a search, with its first markets. */
export function eventSummary(e: Event) {
  const markets = capped(e.markets, MAX_MARKETS_PER_EVENT, marketSummary)
  return {
    id: e.id,
    slug: e.slug,
    title: clip(e.title, MAX_TITLE_CHARS),
    active: e.active,
    closed: e.closed,
    volume: e.volume,
    liquidity: e.liquidity,
    endDate: e.endDate,
    tags: e.tags.slice(0, 10).map((t) => t.slug),
    markets: markets.items,
    marketsTotal: markets.total,
  }
}

/** The most rows one page of a Data API v2 tool returns (holders: per outcome token). */
export const MAX_V2_ROWS = 50

/** The cursors of a v2 page as a tool returns them: `nextCursor` is what the agent passes back as `cursor`. */
export function cursors(page: { readonly cursor: string | undefined; readonly nextCursor: string | undefined; readonly hasMore: boolean }) {
  return { cursor: page.cursor ?? null, nextCursor: page.hasMore ? (page.nextCursor ?? null) : null, hasMore: page.hasMore }
}
