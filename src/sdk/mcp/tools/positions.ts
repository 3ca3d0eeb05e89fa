/** `positions`: one page of a wallet's positions, or of one market's holders' positions (Data API v2). */
import * as z from 'zod'
import { conditionArg, conditionOf, cursorArg, slugArg, walletArg } from '../args.js'
import { MAX_TITLE_CHARS, MAX_V2_ROWS, clip, cursors } from '../bounds.js'
import { defineTool, ToolArgumentError } from '../tool.js'

/** The `positions` tool. */
export const positions = defineTool({
  name: 'positions',
  title: 'Positions',
  description:
    "One page of positions: a wallet's (user), optionally in one market, or every holder's in one market (slug or " +
    'conditionId alone). Each has the market, outcome, shares, average and current price, value and PnL in USDC, ' +
    'and status. nextCursor (null at the end) reads the next page when passed back as cursor.',
  input: z.strictObject({
    user: walletArg.optional(),
    slug: slugArg.optional(),
    conditionId: conditionArg.optional(),
    status: z.enum(['OPEN', 'REDEEMABLE', 'CLOSED']).optional().describe('OPEN (default: still held), REDEEMABLE or CLOSED'),
    sortBy: z.enum(['CURRENT_VALUE', 'TOKENS', 'TOTAL_PNL', 'REALIZED_PNL', 'TIMESTAMP']).optional().describe('the order (the service default without it)'),
    limit: z.int().min(1).max(MAX_V2_ROWS).optional().describe(`positions on the page (default 20, at most ${MAX_V2_ROWS})`),
    cursor: cursorArg.optional(),
  }),
  async run({ user, slug, conditionId, status, sortBy, limit = 20, cursor }, { pm, signal }) {
    const condition = await conditionOf(pm, { slug, conditionId }, signal)
    if (user === undefined && condition === undefined) throw new ToolArgumentError('give user (a wallet), or slug or conditionId (a market), or both')
    const page = await pm.v2.positions({ user, condition }).where({ status, sortBy }).limit(limit).after(cursor).page({ signal })
    return {
      ...cursors(page),
      positions: page.items.slice(0, limit).map((p) => ({
        wallet: p.wallet,
        market: clip(p.title, MAX_TITLE_CHARS),
        slug: p.slug,
        conditionId: p.conditionId,
        outcome: p.outcome,
        status: p.status,
        shares: p.size,
        avgPrice: p.avgPrice,
        currentPrice: p.currentPrice,
        currentValue: p.currentValue,
        realizedPnl: p.realizedPnl,
        unrealizedPnl: p.unrealizedPnl,
        totalPnl: p.totalPnl,
      })),
    }
  },
})
