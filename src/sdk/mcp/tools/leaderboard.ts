/** `leaderboard`: one page of the trader board, or one wallet's standing on it (Data API v2). */
import * as z from 'zod'
import { cursorArg, walletArg } from '../args.js'
import { MAX_V2_ROWS, cursors } from '../bounds.js'
import { defineTool, ToolArgumentError } from '../tool.js'

/** The `leaderboard` tool. */
export const leaderboard = defineTool({
  name: 'leaderboard',
  title: 'Trader leaderboard',
  description:
    "One page of the traders' leaderboard by profit (PNL) or volume over a day, week, month or all time, overall or " +
    "in a category: each trader's rank, wallet, name, PnL and volume in USDC. With user: that wallet's standing " +
    '(null when unranked). nextCursor (null at the end) reads the next page when passed back as cursor.',
  input: z.strictObject({
    period: z.enum(['day', 'week', 'month', 'all']).optional().describe('the window (default day; all counts realized PnL only)'),
    category: z.string().trim().min(1).max(50).regex(/^[a-z-]+$/, 'a category is lower-case letters and -').optional().describe('overall (default) or a catalog category such as politics, crypto, sports'),
    sortBy: z.enum(['PNL', 'VOLUME']).optional().describe('rank by profit (default) or volume'),
    user: walletArg.optional().describe("a wallet: its standing on this board instead of a page"),
    limit: z.int().min(1).max(MAX_V2_ROWS).optional().describe(`traders on the page (default 20, at most ${MAX_V2_ROWS})`),
    cursor: cursorArg.optional(),
  }),
  async run({ period, category, sortBy, user, limit = 20, cursor }, { pm, signal }) {
    const board = pm.v2.leaderboard.where({ period, category, sortBy })
    if (user !== undefined) {
      if (cursor !== undefined) throw new ToolArgumentError('user reads one standing: it takes no cursor')
      return { standing: await board.standing(user, { signal }) }
    }
    const page = await board.limit(limit).after(cursor).page({ signal })
    return {
      ...cursors(page),
      traders: page.items.slice(0, limit).map((r) => ({ rank: r.rank, wallet: r.wallet, name: r.userName, pnl: r.pnl, volume: r.volume })),
    }
  },
})
