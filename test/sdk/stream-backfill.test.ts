// pm.watch(ids, { backfill: true }) against the mock's market channel on a real port: a drop's gap is given back
// from the trades service (scripted here through the client's `fetch`), without what was already yielded.
import { describe, expect, it } from 'vitest'
import { createMarketClient, type MarketEvent } from '../../src/sdk/index.js'
import { FAST, SLUG, readUntil, useMockMarket } from './helpers/stream.js'

const mock = useMockMarket()

/** What the trades service answers (newest first), or a status to fail with; and the requests it got. */
const service: { trades: Record<string, unknown>[] | number; asked: string[] } = { trades: [], asked: [] }

const fetchWithTrades: typeof fetch = async (input, init) => {
  const request = new Request(input, init)
  const url = new URL(request.url)
  if (!url.pathname.endsWith('/data/trades')) return fetch(request)
  service.asked.push(url.search)
  const { trades } = service
  return typeof trades === 'number' ? new Response('{"error":"boom"}', { status: trades }) : Response.json(trades)
}

async function watching() {
  const pm = createMarketClient({ ...mock, fetch: fetchWithTrades, retry: false })
  const m = pm.market(await pm.markets.bySlug(SLUG))
  const it = pm.watch(m.yes, { ...FAST, backfill: true })[Symbol.asyncIterator]()
  await readUntil(it, (s) => s.length === 1) // the initial book
  return { m, it }
}

const hash = (n: number) => '0x' + String(n).repeat(64)
const wireTrade = (asset: string, market: string, n: number, seconds: number) => ({
  side: 'BUY', size: 10 + n, price: 0.6, timestamp: seconds, asset, conditionId: market, transactionHash: hash(n),
})

describe('pm.watch with backfill', () => {
  it('after a drop, yields the trades of the gap it had not yielded, oldest first, before live events resume', async () => {
    const { m, it } = await watching()
    const market = m.market.conditionId
    const now = Date.now()
    mock.publish({ event_type: 'last_trade_price', asset_id: m.yes.id, market, price: '0.6', size: '11', side: 'BUY', timestamp: String(now), transaction_hash: hash(1) })
    await readUntil(it, (s) => s.length === 1)
    const second = Math.floor(Date.now() / 1000)
    service.trades = [
      wireTrade(m.yes.id, market, 3, second), wireTrade(m.no.id, market, 4, second), wireTrade(m.yes.id, market, 2, second),
      wireTrade(m.yes.id, market, 1, Math.floor(now / 1000)), // yielded live before the drop
      wireTrade(m.yes.id, market, 5, second - 600), // before the loss: not in the gap
    ]
    mock.drop()
    const after: MarketEvent[] = await readUntil(it, (s) => s.length === 3)
    expect(after.map((e) => e.type)).toEqual(['reconnected', 'gap_filled', 'book'])
    const gap = after[1]
    if (gap?.type !== 'gap_filled') throw new Error('no gap_filled')
    expect(gap.trades.map((t) => t.transactionHash)).toEqual([hash(2), hash(3)])
    expect(gap.tokenIds).toEqual([m.yes.id])
    expect(gap.from.getTime()).toBeLessThanOrEqual(gap.to.getTime())
    expect(service.asked).toEqual([expect.stringContaining(`market=${market}`)])
    await it.return?.()
  })

  it('says a gap it cannot fill, with the reason, and goes on live', async () => {
    const { it } = await watching()
    service.trades = 503
    mock.drop()
    const after = await readUntil(it, (s) => s.length === 3)
    expect(after.map((e) => e.type)).toEqual(['reconnected', 'gap_unfilled', 'book'])
    expect(after[1]).toMatchObject({ type: 'gap_unfilled', reason: expect.stringMatching(/503|unavailable|error/i) })
    await it.return?.()
  })
})
