/** `holders`: one page of a market's largest holders, per outcome token (Data API v2). */
import * as z from 'zod'
import { conditionArg, conditionOf, cursorArg, slugArg } from '../args.js'
import { MAX_V2_ROWS, cursors } from '../bounds.js'
import { defineTool, ToolArgumentError } from '../tool.js'

/** The `holders` tool. */
export const holders = defineTool({
  name: 'holders',
  title: 'Top holders',
  description:
    "One page of a market's largest holders, largest first, grouped by outcome token: each holder's wallet, name, " +
    'shares held and outcome index. nextCursor (null at the end) reads the next page when passed back as cursor.',
  input: z.strictObject({
    slug: slugArg.optional(),
    conditionId: conditionArg.optional(),
    limit: z.int().min(1).max(MAX_V2_ROWS).optional().describe(`holders per outcome token (default 10, at most ${MAX_V2_ROWS})`),
    minBalance: z.number().min(0).optional().describe('only holders of at least this many shares'),
    cursor: cursorArg.optional(),
  }),
  async run({ slug, conditionId, limit = 10, minBalance, cursor }, { pm, signal }) {
    const condition = await conditionOf(pm, { slug, conditionId }, signal)
    if (condition === undefined) throw new ToolArgumentError('give slug or conditionId: the market whose holders to read')
    const page = await pm.v2.holders(condition).where({ minBalance }).limit(limit).after(cursor).page({ signal })
    return {
      conditionId: condition,
      ...cursors(page),
      tokens: page.items.map((g) => ({
        tokenId: g.tokenId,
        holders: g.holders.slice(0, limit).map((h) => ({ wallet: h.wallet, name: h.name ?? h.pseudonym, shares: h.amount, outcomeIndex: h.outcomeIndex })),
      })),
    }
  },
})
