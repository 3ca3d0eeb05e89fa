/**
 * The market MCP server's tools, in the order `tools/list` shows them. Each is one definition (tool.ts) calling the
 * SDK; adding a read is one file in tools/ and one entry here.
 * The Data API v2 reads (holders, positions, activity, leaderboard) return one page each: cursor in, `nextCursor`
 * out, never a walk.
 */
import type { MarketTool } from './tool.js'
import { activity } from './tools/activity.js'
import { book } from './tools/book.js'
import { holders } from './tools/holders.js'
import { leaderboard } from './tools/leaderboard.js'
import { market } from './tools/market.js'
import { positions } from './tools/positions.js'
import { priceHistory } from './tools/price-history.js'
import { search } from './tools/search.js'
import { trades } from './tools/trades.js'

/** Every tool the server serves. */
export const MARKET_TOOLS: readonly MarketTool[] = [search, market, book, priceHistory, trades, holders, positions, activity, leaderboard]
