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
import { toNumber } from '../wire/fields.js'

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

const optString = (x: unknown): boolean => x === undefined || x === null || typeof x === 'string'
const optNumeric = (x: unknown): boolean => x === undefined || x === null || typeof x === 'string' || typeof x === 'number'

/** What the schema's `numeric` accepts, as a number: a number, or a string that is a finite number and not blank. */
function numeric(x: unknown): number | undefined {
  if (typeof x === 'number') return Number.isNaN(x) ? undefined : x
  if (typeof x !== 'string') return undefined
  const n = Number(x)
  if (!Number.isFinite(n)) return undefined
  // Number() reads blank text as 0, which the schema refuses; only a 0 can be blank, so only a 0 pays for the trim.
  return n === 0 && x.trim() === '' ? undefined : n
}

/** Keys the schema leaves out of its output (valibot never copies them): such a frame takes the schema. */
function droppedKey(o: object): boolean {
  return Object.hasOwn(o, '__proto__') || Object.hasOwn(o, 'constructor') || Object.hasOwn(o, 'prototype')
}
