/**
 * A hand-rolled reader for `/book` bodies in the plain shape the service sends, about a quarter of the valibot
 * schema's cost on a 30-level book. Like the stream's (stream/fast-price-change.ts), it is not a second definition:
 * it gives `undefined` for anything but strings and numbers where the schema allows them and no key the schema
 * drops, and the schema in wire/clob.ts, the source of truth, decides those; whatever it accepts, the schema accepts
 * too and turns into the same book (test/sdk/fast-book.test.ts).
 */
import type { ClobBookWire } from '../wire/clob.js'
import { hasDroppedKey, isOptNumeric, isOptString, numericValue, toNumber } from '../wire/fields.js'
import { bestFirst, type Book, type Level } from './model.js'

/** The {@link Book} of a `/book` body in the common shape, or `undefined` when the schema must decide. */
export function fastBook(body: unknown): Book | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || hasDroppedKey(body)) return undefined
  const w = body as Record<string, unknown>
  const tokenId = w['asset_id']
  const market = w['market']
  const timestamp = w['timestamp']
  const negRisk = w['neg_risk']
  if (typeof tokenId !== 'string' || !isOptString(market) || !isOptNumeric(timestamp) || !isOptString(w['hash'])) return undefined
  if (negRisk !== undefined && negRisk !== null && typeof negRisk !== 'boolean') return undefined
  const minOrderSize = w['min_order_size']
  const tickSize = w['tick_size']
  const lastTradePrice = w['last_trade_price']
  if (!isOptNumeric(minOrderSize) || !isOptNumeric(tickSize) || !isOptNumeric(lastTradePrice)) return undefined
  const bids = levels(w['bids'])
  const asks = levels(w['asks'])
  if (bids === undefined || asks === undefined) return undefined
  const ms = toNumber(timestamp as string | number | null | undefined)
  return {
    market: (market as string | null | undefined) ?? '',
    tokenId,
    timestamp: ms === null ? null : new Date(ms),
    bids: bestFirst(bids, 'high'),
    asks: bestFirst(asks, 'low'),
    minOrderSize: toNumber(minOrderSize as string | number | null | undefined),
    tickSize: toNumber(tickSize as string | number | null | undefined),
    negRisk: negRisk ?? false,
    lastTradePrice: toNumber(lastTradePrice as string | number | null | undefined),
    // The body as parsed: what the schema gives too, but for the order of its keys (the schema's first).
    raw: w as ClobBookWire,
  }
}

/** One side's levels (absent or `null`: none), or `undefined` when one of them is not the plain shape. */
function levels(raw: unknown): Level[] | undefined {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) return undefined
  const out = new Array<Level>(raw.length)
  for (let i = 0; i < raw.length; i++) {
    const l: unknown = raw[i]
    if (typeof l !== 'object' || l === null || Array.isArray(l) || hasDroppedKey(l)) return undefined
    const price = numericValue((l as Record<string, unknown>)['price'])
    const size = numericValue((l as Record<string, unknown>)['size'])
    if (price === undefined || size === undefined) return undefined
    out[i] = { price, size }
  }
  return out
}
