/**
 * The market MCP server's tools, in the order `tools/list` shows them. Each is one definition (tool.ts) calling the
 * SDK; adding a read is one file in tools/ and one entry here.
 *
 * Still to come: the Data API v2 reads (holders, positions, activity, leaderboards) are being added to the SDK on
 * another branch; each becomes one entry here once the SDK has it, as a single page (cursor in, `nextCursor` out),
 * never a walk.
 */
import type { MarketTool } from './tool.js'
import { book } from './tools/book.js'
import { market } from './tools/market.js'
import { priceHistory } from './tools/price-history.js'
import { search } from './tools/search.js'
import { trades } from './tools/trades.js'

/** Every tool the server serves. */
export const MARKET_TOOLS: readonly MarketTool[] = [search, market, book, priceHistory, trades]
