/** `activity`: one page of a wallet's activity feed (Data API v2): trades, splits, merges, redemptions, rewards. */
import * as z from 'zod'
import { conditionArg, conditionOf, cursorArg, slugArg, walletArg } from '../args.js'
import { MAX_TITLE_CHARS, MAX_V2_ROWS, clip, cursors } from '../bounds.js'
import { defineTool } from '../tool.js'

/** The `activity` tool. */
export const activity = defineTool({
  name: 'activity',
  title: 'Wallet activity',
  description:
    "One page of a wallet's activity, newest first: trades, splits, merges, redemptions, rewards and conversions, " +
    'each with its time, kind, market, outcome, side, shares, USDC and price; optionally of one market or kinds. ' +
    'nextCursor (null at the end) reads the next page when passed back as cursor.',
  input: z.strictObject({
    user: walletArg,
    slug: slugArg.optional(),
    conditionId: conditionArg.optional(),
    type: z.array(z.enum(['TRADE', 'SPLIT', 'MERGE', 'REDEEM', 'REWARD', 'CONVERSION'])).min(1).max(6).optional().describe('only these kinds'),
    side: z.enum(['buy', 'sell']).optional().describe('only buys or only sells'),
    limit: z.int().min(1).max(MAX_V2_ROWS).optional().describe(`rows on the page (default 20, at most ${MAX_V2_ROWS})`),
    cursor: cursorArg.optional(),
  }),
  async run({ user, slug, conditionId, type, side, limit = 20, cursor }, { pm, signal }) {
    const condition = await conditionOf(pm, { slug, conditionId }, signal)
    const page = await pm.v2.activity(user).where({ condition, type, side }).limit(limit).after(cursor).page({ signal })
    return {
      ...cursors(page),
      activity: page.items.slice(0, limit).map((a) => ({
        time: new Date(a.timestamp * 1000),
        type: a.type,
        market: clip(a.title, MAX_TITLE_CHARS),
        slug: a.slug,
        outcome: a.outcome,
        side: a.side,
        shares: a.size,
        usdc: a.usdcSize,
        price: a.price,
      })),
    }
  },
})
