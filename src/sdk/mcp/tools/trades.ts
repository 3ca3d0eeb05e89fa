/** `trades`: one page of recent trades, of one market or of all. */
import * as z from 'zod'
import { MAX_TRADES_OFFSET } from '../../data/trades.js'
import { slugArg } from '../args.js'
import { clip, MAX_TITLE_CHARS } from '../bounds.js'
import { defineTool, ToolArgumentError } from '../tool.js'

/** The most trades on one page (the service's own page size). */
const MAX_LIMIT = 100

/** The `trades` tool. */
export const trades = defineTool({
  name: 'trades',
  title: 'Recent trades',
  description:
    'One page of recent trades, newest first: of a market (by slug or condition id) or of every market. Each trade has ' +
    'its time, side, outcome, price (probability), size (shares) and trader; nextOffset pages further.',
  input: z.strictObject({
    slug: slugArg.optional(),
    conditionId: z.string().trim().regex(/^0x[0-9a-fA-F]{64}$/, 'a condition id is 0x and 64 hex digits').optional().describe("the market's condition id"),
    side: z.enum(['buy', 'sell']).optional().describe('only buys or only sells'),
    limit: z.int().min(1).max(MAX_LIMIT).optional().describe(`trades on the page (default 20, at most ${MAX_LIMIT})`),
    offset: z.int().min(0).max(MAX_TRADES_OFFSET).optional().describe(`trades to skip (default 0, at most ${MAX_TRADES_OFFSET})`),
  }),
  async run({ slug, conditionId, side, limit = 20, offset = 0 }, { pm, signal }) {
    if (slug !== undefined && conditionId !== undefined) throw new ToolArgumentError('give either slug or conditionId, not both')
    const market = slug !== undefined ? (await pm.markets.bySlug(slug, { signal })).conditionId : conditionId
    const page = await pm.trades.where({ market, side }).limit(limit).offset(offset).list({ signal })
    const next = offset + page.length
    return {
      offset,
      nextOffset: page.length === limit && next <= MAX_TRADES_OFFSET ? next : null,
      trades: page.slice(0, limit).map((t) => ({
        time: new Date(t.timestamp * 1000),
        side: t.side,
        outcome: t.outcome,
        price: t.price,
        size: t.size,
        market: clip(t.title, MAX_TITLE_CHARS),
        slug: t.slug,
        trader: t.name ?? t.pseudonym ?? t.wallet,
      })),
    }
  },
})
