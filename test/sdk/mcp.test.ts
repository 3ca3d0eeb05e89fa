// `hookpilot market mcp` driven by the official MCP client over stdio: the built CLI as a child process serving the
// mock services, as an agent's MCP client would start it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, ROOT, assertBuilt, runMain, startCli } from '../fixtures/cli.js'

const FED = 'will-2-fed-rate-cuts-happen-in-2025'
const SPAIN = 'will-spain-win-the-2026-world-cup'
const TOKEN = '10051672510051672510051672510051672510051672510051672510051672510051672510051'
const SPAIN_ID = '0x0070010300700103007001030070010300700103007001030070010300700103'
// The mock's second wallet holds open positions; its first only sells.
const WALLET = '0x1111111111111111111111111111111111111111'

interface ToolAnswer {
  readonly isError?: boolean
  readonly content: readonly { type: string; text?: string }[]
}

async function connect(...options: string[]): Promise<Client> {
  assertBuilt()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'market', 'mcp', '--mock', ...options],
    cwd: ROOT,
    stderr: 'pipe',
  })
  const client = new Client({ name: 'hookpilot-test', version: '0.0.0' })
  await client.connect(transport)
  return client
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer
}

/** The text of a tool's answer. */
const textOf = (answer: ToolAnswer): string => answer.content.map((c) => c.text ?? '').join('')

/** The JSON of a successful answer. */
function json<T>(answer: ToolAnswer): T {
  expect(answer.isError, textOf(answer)).toBeFalsy()
  return JSON.parse(textOf(answer)) as T
}

describe('hookpilot market mcp', () => {
  let client: Client
  beforeAll(async () => {
    client = await connect()
  })
  afterAll(async () => {
    await client?.close()
  })

  it('lists the read tools, each with a strict input schema and marked read-only', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['search', 'market', 'book', 'price_history', 'trades', 'holders', 'positions', 'activity', 'leaderboard'])
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(40)
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false })
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
    }
    const book = tools.find((t) => t.name === 'book')
    expect(Object.keys(book?.inputSchema.properties ?? {})).toEqual(['token', 'slug', 'outcome', 'depth'])
    expect(book?.inputSchema.properties?.['depth']).toMatchObject({ type: 'integer', minimum: 1, maximum: 50 })
  })

  it('searches events by text, one bounded page', async () => {
    const page = json<{ events: { slug: string; markets: { slug: string; outcomes: { tokenId: string }[] }[] }[]; tags: string[] }>(
      await call(client, 'search', { text: 'bitcoin', limit: 2 }),
    )
    expect(page.events.length).toBeGreaterThan(0)
    expect(page.events.length).toBeLessThanOrEqual(2)
    expect(page.events.flatMap((e) => e.markets.map((m) => m.slug)).join(' ')).toContain('bitcoin')
    expect(page.tags).toContain('bitcoin')
  })

  it('reads one market by slug, without the wire copy', async () => {
    const m = json<{ slug: string; question: string; outcomes: { label: string; price: number }[]; raw?: unknown }>(
      await call(client, 'market', { slug: FED }),
    )
    expect(m.slug).toBe(FED)
    expect(m.outcomes.map((o) => o.label)).toEqual(['Yes', 'No'])
    expect(m.outcomes[0]?.price).toBeCloseTo(0.64)
    expect(m.raw).toBeUndefined()
  })

  it("reads a token's book to the depth asked, by slug and by token id", async () => {
    const bySlug = json<{ bids: { price: number }[]; asks: { price: number }[]; levels: { bids: number }; midpoint: number; spread: number }>(
      await call(client, 'book', { slug: FED, depth: 2 }),
    )
    expect(bySlug.bids.map((l) => l.price)).toEqual([0.64, 0.63])
    expect(bySlug.asks).toHaveLength(2)
    expect(bySlug.levels.bids).toBeGreaterThan(2)
    expect(bySlug.midpoint).toBe(0.645)
    expect(bySlug.spread).toBe(0.01)
    const byToken = json<{ tokenId: string; bids: unknown[] }>(await call(client, 'book', { token: TOKEN }))
    expect(byToken.tokenId).toBe(TOKEN)
    expect(byToken.bids.length).toBeGreaterThan(0)
  })

  it('reads a price history thinned to maxPoints, the latest point kept', async () => {
    const h = json<{ count: number; returned: number; last: { t: number; p: number }; points: { t: number; p: number }[] }>(
      await call(client, 'price_history', { slug: 'will-1-fed-rate-cut-happen-in-2025', interval: '1w', maxPoints: 10 }),
    )
    expect(h.count).toBeGreaterThan(10)
    expect(h.returned).toBe(h.points.length)
    expect(h.points.length).toBeLessThanOrEqual(10)
    expect(h.points.at(-1)).toEqual(h.last)
    const times = h.points.map((p) => p.t)
    expect(times).toEqual([...times].sort((a, b) => a - b))
  })

  it('reads one page of trades with the offset of the next', async () => {
    const page = json<{ nextOffset: number | null; trades: { side: string; slug: string }[] }>(
      await call(client, 'trades', { slug: SPAIN, side: 'sell', limit: 5, offset: 10 }),
    )
    expect(page.trades).toHaveLength(5)
    expect(page.trades.every((t) => t.side === 'sell' && t.slug === SPAIN)).toBe(true)
    expect(page.nextOffset).toBe(15)
  })

  it("reads a market's top holders one page at a time, the next page by its cursor", async () => {
    type Page = { conditionId: string; cursor: string | null; nextCursor: string | null; hasMore: boolean; tokens: { tokenId: string; holders: { wallet: string; shares: number }[] }[] }
    const first = json<Page>(await call(client, 'holders', { slug: SPAIN, limit: 1 }))
    expect(first.conditionId).toBe(SPAIN_ID)
    expect(first.cursor).toBeNull()
    expect(first.tokens.length).toBeGreaterThan(0)
    for (const group of first.tokens) {
      expect(group.holders).toHaveLength(1)
    }
    expect(first.hasMore).toBe(true)
    const second = json<Page>(await call(client, 'holders', { conditionId: SPAIN_ID, limit: 1, cursor: first.nextCursor }))
    expect(second.cursor).toBe(first.nextCursor)
    const walletsOf = (p: Page) => p.tokens.flatMap((g) => g.holders.map((h) => `${g.tokenId}|${h.wallet}`))
    expect(walletsOf(second).length).toBeGreaterThan(0)
    expect(walletsOf(second).filter((w) => walletsOf(first).includes(w))).toEqual([])
    // Largest first across pages: no holder of the second page holds more than the first page's of the same token.
    for (const g of second.tokens) {
      const before = first.tokens.find((f) => f.tokenId === g.tokenId)?.holders[0]?.shares
      if (before !== undefined) expect(g.holders[0]?.shares).toBeLessThanOrEqual(before)
    }
  })

  it("reads a wallet's positions by status, and a wallet's activity in one market", async () => {
    const open = json<{ positions: { wallet: string; status: string; shares: number }[]; nextCursor: string | null }>(
      await call(client, 'positions', { user: WALLET, limit: 5 }),
    )
    expect(open.positions.length).toBeGreaterThan(0)
    expect(open.positions.length).toBeLessThanOrEqual(5)
    expect(open.positions.every((p) => p.wallet === WALLET && p.status !== 'CLOSED' && p.shares > 0)).toBe(true)
    const closed = json<{ positions: { status: string }[] }>(await call(client, 'positions', { user: '0xceb57e549f8aa0627f4a4c6004bc8951d78ea27b', status: 'CLOSED', limit: 5 }))
    expect(closed.positions.length).toBeGreaterThan(0)
    expect(closed.positions.every((p) => p.status === 'CLOSED')).toBe(true)

    const feed = json<{ activity: { type: string; slug: string; time: string }[]; hasMore: boolean }>(
      await call(client, 'activity', { user: WALLET, slug: 'microstrategy-sells-any-bitcoin-by-may-31-2026', limit: 3 }),
    )
    expect(feed.activity.length).toBeGreaterThan(0)
    expect(feed.activity.length).toBeLessThanOrEqual(3)
    expect(feed.activity.every((a) => a.type === 'TRADE' && a.slug === 'microstrategy-sells-any-bitcoin-by-may-31-2026')).toBe(true)
    const times = feed.activity.map((a) => Date.parse(a.time))
    expect(times).toEqual([...times].sort((a, b) => b - a))
  })

  it("reads a page of the leaderboard in rank order, and one wallet's standing", async () => {
    const board = json<{ traders: { rank: number; wallet: string }[]; nextCursor: string | null; hasMore: boolean }>(
      await call(client, 'leaderboard', { period: 'week', sortBy: 'VOLUME', limit: 2 }),
    )
    expect(board.traders).toHaveLength(2)
    expect(board.hasMore).toBe(true)
    const ranks = board.traders.map((t) => t.rank)
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b))
    const next = json<{ traders: { rank: number }[] }>(await call(client, 'leaderboard', { period: 'week', sortBy: 'VOLUME', limit: 2, cursor: board.nextCursor }))
    expect(next.traders[0]?.rank).toBeGreaterThanOrEqual(ranks.at(-1) ?? 0)
    const standing = json<{ standing: { wallet: string } | null }>(await call(client, 'leaderboard', { period: 'week', user: WALLET }))
    expect(standing.standing?.wallet).toBe(WALLET)
  })

  it('refuses invalid arguments of the v2 tools, naming the argument', async () => {
    const badWallet = await call(client, 'positions', { user: '0x12' })
    expect(badWallet.isError).toBe(true)
    expect(textOf(badWallet)).toMatch(/wallet is 0x and 40 hex digits[\s\S]*user/)
    const noMarket = await call(client, 'holders', {})
    expect(textOf(noMarket)).toBe('holders: invalid arguments: give slug or conditionId: the market whose holders to read')
    const noAnchor = await call(client, 'positions', { status: 'OPEN' })
    expect(textOf(noAnchor)).toMatch(/^positions: invalid arguments: give user \(a wallet\)/)
    const tooMany = await call(client, 'leaderboard', { limit: 500 })
    expect(tooMany.isError).toBe(true)
    expect(textOf(tooMany)).toMatch(/limit/)
    const needsUser = await call(client, 'activity', { slug: SPAIN })
    expect(needsUser.isError).toBe(true)
    expect(textOf(needsUser)).toMatch(/user/)
    const foreignCursor = await call(client, 'activity', { user: WALLET, cursor: 'not-a-cursor' })
    expect(foreignCursor.isError).toBe(true)
    expect(textOf(foreignCursor)).toMatch(/^activity: .*cursor/i)
  })

  it('refuses invalid arguments as tool errors that name the argument', async () => {
    const tooDeep = await call(client, 'book', { slug: FED, depth: 5000 })
    expect(tooDeep.isError).toBe(true)
    expect(textOf(tooDeep)).toMatch(/depth/)
    const misspelt = await call(client, 'market', { slugg: FED })
    expect(misspelt.isError).toBe(true)
    expect(textOf(misspelt)).toMatch(/slugg/)
    const notANumber = await call(client, 'book', { token: 'abc' })
    expect(textOf(notANumber)).toMatch(/token id is a string of decimal digits[\s\S]*token/)
    const neither = await call(client, 'book', {})
    expect(neither.isError).toBe(true)
    expect(textOf(neither)).toBe('book: invalid arguments: give token (an outcome token id) or slug (a market slug)')
    const longWindow = await call(client, 'price_history', { token: TOKEN, start: 1_750_000_000, end: 1_750_000_000 + 20 * 86_400 })
    expect(textOf(longWindow)).toMatch(/^price_history: invalid arguments: the window from start to end is over 15 days/)
  })

  it("returns the service's errors as tool errors, and goes on serving", async () => {
    const unknown = await call(client, 'market', { slug: 'no-such-market-anywhere' })
    expect(unknown.isError).toBe(true)
    expect(textOf(unknown)).toMatch(/^market: .*no-such-market-anywhere/)
    const noOutcome = await call(client, 'book', { slug: FED, outcome: 'Maybe' })
    expect(textOf(noOutcome)).toMatch(/no outcome "Maybe" \(outcomes: Yes, No\)/)
    expect(json<{ slug: string }>(await call(client, 'market', { slug: FED })).slug).toBe(FED)
  })
})

describe('hookpilot market mcp budget', () => {
  it('spends one request budget across every tool: a call that would wait past --max-wait is refused', async () => {
    // One catalog request per 10 s: search spends it, so market (another tool, the same service) finds it spent.
    const client = await connect('--rate', '1', '--max-wait', '1')
    try {
      expect(json<{ events: unknown[] }>(await call(client, 'search', { text: 'bitcoin' })).events.length).toBeGreaterThan(0)
      const refused = await call(client, 'market', { slug: FED })
      expect(refused.isError).toBe(true)
      expect(textOf(refused)).toMatch(/^market: the server's request budget is spent for now: the next request could go in \d+(\.\d)? s, longer than the 1 s a call may wait/)
    } finally {
      await client.close()
    }
  })

  it('refuses a bad --rate or --max-wait before it serves', async () => {
    const rate = await runMain(['market', 'mcp', '--rate', '0', '--mock'])
    expect(rate.code).toBe(2)
    expect(rate.stderr).toContain('--rate must be a whole number from 1 to 10000 (got "0")')
    const wait = await runMain(['market', 'mcp', '--max-wait', 'soon'])
    expect(wait.code).toBe(2)
    expect(wait.stderr).toContain('--max-wait must be a whole number')
  })

  it('ends when its stdin closes', async () => {
    // startCli gives the child no stdin: it reads end of input at once, as when an MCP client closes the pipe.
    const cli = startCli(['market', 'mcp', '--mock'])
    expect(await cli.exited).toBe(0)
    expect(cli.stderr()).toContain('serving 9 tools over stdio')
  })
})
