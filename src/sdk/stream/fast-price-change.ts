/**
 * A hand-rolled reader for the stream's hot frame, `price_change` (nearly every frame of a busy market), which costs
 * about a fifth of what the valibot schema does. It is not a second definition of the frame: it accepts only the
 * plain shape the channel sends (strings where the schema allows strings, `BUY`/`SELL` in capitals, no key the
 * schema would drop) and gives `undefined` for anything else, which then takes the schema in wire.ts, the source of
 * truth; whatever it accepts, the schema accepts too and turns into the same event (test/sdk/fast-price-change.test.ts
 * checks both on the spec's sample frames and on malformed ones).
 */
import { side, time, type PriceChange, type PriceChangeEvent } from './events.js'
import type { PriceChangeWire } from './wire.js'
import { hasDroppedKey as droppedKey, isOptNumeric as optNumeric, isOptString as optString, numericValue as numeric, toNumber } from '../wire/fields.js'

/** The event of a `price_change` frame in the common shape, or `undefined` when the schema must decide. */
export function fastPriceChange(o: Record<string, unknown>): PriceChangeEvent | undefined {
  const market = o['market']
  const timestamp = o['timestamp']
  const entries = o['price_changes']
  if (!optString(market) || !optNumeric(timestamp) || !Array.isArray(entries) || droppedKey(o)) return undefined
  const changes: PriceChange[] = new Array<PriceChange>(entries.length)
  for (let i = 0; i < entries.length; i++) {
    const change = entry(entries[i])
    if (change === undefined) return undefined
    changes[i] = change
  }
  return {
    type: 'price_change',
    market: (market as string | null | undefined) ?? '',
    timestamp: time(timestamp as string | number | null | undefined),
    changes,
    // The frame as parsed: what the schema gives too, but for the order of its keys (the schema's first).
    raw: o as PriceChangeWire,
  }
}

function entry(c: unknown): PriceChange | undefined {
  if (typeof c !== 'object' || c === null || Array.isArray(c)) return undefined
  const e = c as Record<string, unknown>
  const tokenId = e['asset_id']
  const price = numeric(e['price'])
  const size = numeric(e['size'])
  const s = e['side']
  const hash = e['hash']
  const bestBid = e['best_bid']
  const bestAsk = e['best_ask']
  if (typeof tokenId !== 'string' || price === undefined || size === undefined || (s !== 'BUY' && s !== 'SELL')) return undefined
  if (!optString(hash) || !optNumeric(bestBid) || !optNumeric(bestAsk) || droppedKey(e)) return undefined
  return {
    tokenId,
    price,
    size,
    side: side(s),
    hash: (hash as string | null | undefined) ?? null,
    bestBid: toNumber(bestBid as string | number | null | undefined),
    bestAsk: toNumber(bestAsk as string | number | null | undefined),
  }
}
