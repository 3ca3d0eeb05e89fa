/** `market`: one catalog market in full, by slug or id. */
import * as z from 'zod'
import { slugArg } from '../args.js'
import { marketDetail } from '../bounds.js'
import { defineTool, ToolArgumentError } from '../tool.js'

/** The `market` tool. */
export const market = defineTool({
  name: 'market',
  title: 'Market',
  description:
    'One prediction market by slug or catalog id: question, description, outcomes with prices and token ids, ' +
    'best bid and ask, last trade, volume, liquidity, dates and whether it is closed.',
  input: z.strictObject({
    slug: slugArg.optional(),
    id: z.string().trim().regex(/^\d{1,20}$/, 'a catalog id is a short string of digits').optional().describe("the market's catalog id"),
  }),
  async run({ slug, id }, { pm, signal }) {
    if ((slug === undefined) === (id === undefined)) throw new ToolArgumentError('give exactly one of slug and id')
    const m = slug !== undefined ? await pm.markets.bySlug(slug, { signal }) : await pm.markets.byId(id ?? '', { signal })
    return marketDetail(m)
  },
})
