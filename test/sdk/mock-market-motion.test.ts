/**
 * The mock moves like a market when asked (issue 38, item 13): docs/market-alerts.md's example watch (a move of
 * 0.05, crossings at 0.25/0.5/0.75, a trade over 5,000 shares) never fired against the scripted mock, whose trades
 * are all 10 shares and whose midpoint moves half a tick in 25 minutes. With `motion: 'market'` each of those
 * fires within 240 moves (two minutes at the default pace), for every seed tried, and a seed replays its run.
 */
import { describe, expect, it } from 'vitest'
import { MOCK_TICK } from '../../src/sdk/mock/clob.js'
import { MockFeed } from '../../src/sdk/mock/feed.js'
import { MARKETS, tokensOf } from '../../src/sdk/mock/fixtures.js'

const FED_CUT = MARKETS.find((m) => m.slug === 'will-1-fed-rate-cut-happen-in-2025')
const [YES, NO] = FED_CUT === undefined ? [] : tokensOf(FED_CUT)
const TWO_MINUTES = 240 // moves at the default 500 ms

interface Seen { mids: number[]; trades: number[] }

/** What a watch of the fed-cut slug would read over `steps` moves: YES's midpoints, and every trade's size. */
function run(feed: MockFeed, steps: number): Seen {
  const seen: Seen = { mids: [], trades: [] }
  for (let i = 0; i < steps; i++) {
    for (const { tokenId, payload } of feed.step([YES as string, NO as string])) {
      if (payload['event_type'] === 'last_trade_price') seen.trades.push(Number(payload['size']))
      if (payload['event_type'] === 'book' && tokenId === YES) {
        const book = payload as { bids: Array<{ price: string }>; asks: Array<{ price: string }> }
        seen.mids.push((Number(book.bids.at(-1)?.price) + Number(book.asks.at(-1)?.price)) / 2)
      }
    }
  }
  return seen
}

/** Whether the midpoints cross `level` either way, leaving the band `level ± 0.01` as the watch's default does. */
function crosses(mids: readonly number[], level: number): boolean {
  let side: number | undefined
  for (const mid of mids) {
    const now = mid > level + 0.01 + 1e-9 ? 1 : mid < level - 0.01 - 1e-9 ? -1 : 0
    if (now === 0) continue
    if (side !== undefined && now !== side) return true
    side = now
  }
  return false
}

describe('the mock market moving like a market', () => {
  it('the scripted mock (the default) never gives the example watch an alert in two minutes', () => {
    const seen = run(new MockFeed(() => 0), TWO_MINUTES)
    expect(Math.max(...seen.trades)).toBeLessThanOrEqual(5_000)
    expect([0.25, 0.5, 0.75].some((level) => crosses(seen.mids, level))).toBe(false)
  })

  for (const seed of [1, 2, 3, 42, 1234, 99_999, 2_000_000_000]) {
    it(`seed ${seed}: a block trade over 5,000, a crossing of 0.5 and a move of 0.05 within two minutes, every price on the tick`, () => {
      const seen = run(new MockFeed(() => 0, seed), TWO_MINUTES)
      expect(Math.max(...seen.trades)).toBeGreaterThan(5_000)
      // Many sizes, most of them small.
      expect(new Set(seen.trades).size).toBeGreaterThan(20)
      expect(seen.trades.filter((size) => size < 1_000).length).toBeGreaterThan(seen.trades.length / 2)
      expect(crosses(seen.mids, 0.5)).toBe(true)
      expect(Math.max(...seen.mids) - Math.min(...seen.mids)).toBeGreaterThanOrEqual(0.05)
      for (const mid of seen.mids) {
        expect(mid > 0 && mid < 1).toBe(true)
        expect(Math.abs(mid / MOCK_TICK - Math.round(mid / MOCK_TICK))).toBeLessThan(1e-6)
      }
    })
  }

  it('the same seed replays the same market, move for move; another seed gives another; reset starts it again', () => {
    const a = new MockFeed(() => 0, 7)
    const first = run(a, 100)
    expect(run(new MockFeed(() => 0, 7), 100)).toEqual(first)
    expect(run(new MockFeed(() => 0, 8), 100)).not.toEqual(first)
    a.reset()
    expect(run(a, 100)).toEqual(first)
  })

  it('a move and a trade by hand: the midpoint is where it was put, the trade of the size given', () => {
    const feed = new MockFeed(() => 0, 5)
    const moved = feed.move(YES as string, 0.62)
    const book = moved.find((f) => f.payload['event_type'] === 'book')?.payload as { bids: Array<{ price: string }>; asks: Array<{ price: string }> }
    expect((Number(book.bids.at(-1)?.price) + Number(book.asks.at(-1)?.price)) / 2).toBeCloseTo(0.62, 6)
    const [trade] = feed.trade(YES as string, 8_000, 'SELL')
    expect(trade?.payload).toMatchObject({ event_type: 'last_trade_price', size: '8000', side: 'SELL', price: '0.61' })
  })
})
