/** `book`: one outcome token's order book, its best levels. */
import * as z from 'zod'
import type { Level } from '../../clob/model.js'
import { tokenOf, tokenTarget } from '../args.js'
import { defineTool } from '../tool.js'

/** The most levels per side. */
const MAX_DEPTH = 50

/** The `book` tool. */
export const book = defineTool({
  name: 'book',
  title: 'Order book',
  description:
    "An outcome token's order book: the best bid and ask levels (price as a probability from 0 to 1, size in shares), " +
    'midpoint, spread, last trade price and tick size. Give token, or slug (and outcome).',
  input: z.strictObject({
    ...tokenTarget,
    depth: z.int().min(1).max(MAX_DEPTH).optional().describe(`levels per side, best first (default 10, at most ${MAX_DEPTH})`),
  }),
  async run(args, { pm, signal }) {
    const b = await (await tokenOf(pm, args, signal)).book({ signal })
    const depth = args.depth ?? 10
    const [bid, ask] = [b.bids[0], b.asks[0]]
    const level = (l: Level) => ({ price: l.price, size: l.size })
    // Prices are on a tick of at least 0.0001: rounding drops the float noise of a sum (0.010000000000000009).
    const round = (x: number) => Math.round(x * 1e6) / 1e6
    return {
      tokenId: b.tokenId,
      conditionId: b.market,
      timestamp: b.timestamp,
      midpoint: bid && ask ? round((bid.price + ask.price) / 2) : null,
      spread: bid && ask ? round(ask.price - bid.price) : null,
      lastTradePrice: b.lastTradePrice,
      tickSize: b.tickSize,
      minOrderSize: b.minOrderSize,
      bids: b.bids.slice(0, depth).map(level),
      asks: b.asks.slice(0, depth).map(level),
      levels: { bids: b.bids.length, asks: b.asks.length },
    }
  },
})
