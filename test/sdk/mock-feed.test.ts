/**
 * The mock market's books stay possible: every price it quotes (book levels, price changes, best bid and ask,
 * trades) is inside (0, 1) and on the tick, however long the feed moves (`hookpilot market watch --mock` once
 * showed bids at 0 and -0.01).
 */
import { describe, expect, it } from 'vitest'
import { MOCK_TICK, initialBook } from '../../src/sdk/mock/clob.js'
import { MockFeed } from '../../src/sdk/mock/feed.js'
import { MARKETS, tokensOf } from '../../src/sdk/mock/fixtures.js'

const open = MARKETS.filter((m) => m['closed'] !== true).flatMap((m) => tokensOf(m)).filter((id) => initialBook(id) !== undefined)

/** Every price a frame or a book holds, by where it was found. */
function prices(value: unknown, at = ''): Array<[string, number]> {
  if (Array.isArray(value)) return value.flatMap((v, i) => prices(v, `${at}[${i}]`))
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).flatMap(([key, v]) =>
    ['price', 'best_bid', 'best_ask'].includes(key) && v !== undefined && v !== null ? [[`${at}.${key}`, Number(v)] as [string, number]] : prices(v, `${at}.${key}`),
  )
}

const onTick = (p: number) => Math.abs(p / MOCK_TICK - Math.round(p / MOCK_TICK)) < 1e-6

describe('the mock market feed', () => {
  it('starts every open book inside (0, 1), on the tick, with a bid below an ask', () => {
    expect(open.length).toBeGreaterThan(5)
    for (const id of open) {
      const book = initialBook(id)
      for (const [where, p] of prices(book)) {
        if (where === '.last_trade_price') continue
        expect(p > 0 && p < 1 && onTick(p), `${id}${where} = ${p}`).toBe(true)
      }
    }
  })

  it('keeps every quoted price inside (0, 1) and on the tick over 3,000 steps, and a price on each side of each book', () => {
    const feed = new MockFeed(() => 1_786_483_975_529)
    for (let step = 0; step < 3_000; step++) {
      for (const frame of feed.step(open)) {
        for (const [where, p] of prices(frame.payload)) {
          expect(p > 0 && p < 1, `step ${step}, ${frame.tokenId}${where} = ${p}`).toBe(true)
          if (frame.payload['event_type'] !== 'last_trade_price') expect(onTick(p), `step ${step}, ${frame.tokenId}${where} = ${p}`).toBe(true)
        }
      }
    }
    // The odd book with `bids: null` is served by REST only; every other book keeps a price on each side.
    const live = open.map((id) => feed.book(id)).filter((book) => book !== undefined)
    expect(live.length).toBeGreaterThan(5)
    for (const book of live) {
      expect(book.asks.length, book.asset_id).toBeGreaterThan(0)
      expect(book.bids?.length, book.asset_id).toBeGreaterThan(0)
    }
  })
})
