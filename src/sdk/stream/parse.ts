/**
 * One text frame of the market channel into typed events. A frame is plain text (`PONG`, `NO NEW ASSETS`,
 * `INVALID OPERATION`), a JSON object or a JSON array of objects that may mix event types. Nothing in a frame ends
 * the stream: what cannot be read is reported and skipped, and never takes its array siblings down with it.
 */
import * as v from 'valibot'
import {
  toBestBidAskEvent,
  toBookEvent,
  toLastTradeEvent,
  toMarketResolvedEvent,
  toNewMarketEvent,
  toPriceChangeEvent,
  toTickSizeEvent,
  type StreamEvent,
} from './events.js'
import { fastPriceChange } from './fast-price-change.js'
import {
  BestBidAskSchema,
  LastTradePriceSchema,
  MarketResolvedSchema,
  NewMarketSchema,
  PriceChangeSchema,
  StreamBookSchema,
  TickSizeChangeSchema,
} from './wire.js'

/** Why a frame or an element of one was skipped, with the frame (parsed when it was JSON) for the reader's logs. */
export type UnknownFrameHandler = (frame: unknown, reason: string) => void

// Schemas with their conversion, built once per module.
const READERS: Readonly<Record<string, v.GenericSchema<unknown, StreamEvent>>> = {
  book: v.pipe(StreamBookSchema, v.transform(toBookEvent)),
  price_change: v.pipe(PriceChangeSchema, v.transform(toPriceChangeEvent)),
  last_trade_price: v.pipe(LastTradePriceSchema, v.transform(toLastTradeEvent)),
  tick_size_change: v.pipe(TickSizeChangeSchema, v.transform(toTickSizeEvent)),
  best_bid_ask: v.pipe(BestBidAskSchema, v.transform(toBestBidAskEvent)),
  new_market: v.pipe(NewMarketSchema, v.transform(toNewMarketEvent)),
  market_resolved: v.pipe(MarketResolvedSchema, v.transform(toMarketResolvedEvent)),
}

/**
 * Reads one text frame (not `PONG`, which the heartbeat consumes) into events, in order, handing each to `emit`
 * (no array per frame), and reporting what it skips.
 */
export function parseFrame(text: string, report: UnknownFrameHandler, emit: (event: StreamEvent) => void): void {
  const first = text.charCodeAt(0)
  // `{` or `[`: anything else is one of the channel's plain-text replies.
  if (first !== 123 && first !== 91) return report(text, 'plain-text frame')
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return report(text, 'not JSON')
  }
  if (Array.isArray(parsed)) for (const item of parsed) readElement(item, emit, report)
  else readElement(parsed, emit, report)
}

function readElement(item: unknown, emit: (event: StreamEvent) => void, report: UnknownFrameHandler): void {
  if (typeof item !== 'object' || item === null) return report(item, 'not an object')
  const o = item as Record<string, unknown>
  let type = o['event_type']
  if (type === 'price_change') {
    const fast = fastPriceChange(o)
    // The hot frame's fast path; anything it does not take goes through the schema below.
    if (fast !== undefined) return emit(fast)
  }
  // Some initial snapshots came without `event_type`; the legacy doc table named the sides `buys`/`sells`.
  if (type === undefined && ('bids' in o || 'asks' in o || 'buys' in o)) type = 'book'
  const element = type === 'book' && !('bids' in o) && 'buys' in o ? { ...o, bids: o['buys'], asks: o['sells'] } : o
  if (type === 'price_change' && !('price_changes' in o) && 'changes' in o) {
    return report(item, 'retired price_change shape (before 2025-09-15): no price_changes[]')
  }
  const reader = typeof type === 'string' ? READERS[type] : undefined
  if (reader === undefined) return report(item, `unknown event_type ${JSON.stringify(type)}`)
  const result = v.safeParse(reader, element)
  if (result.success) return emit(result.output)
  const issue = result.issues[0]
  report(item, `malformed ${String(type)}: ${v.getDotPath(issue) ?? '(frame)'}: ${issue.message}`)
}
