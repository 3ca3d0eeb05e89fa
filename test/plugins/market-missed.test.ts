/**
 * missedPrices reads what the price did while a watch was not looking from the mock's `/prices-history`: every
 * point after the last observation's second, even when the watch looks again less than a second later (a
 * stream that reconnects fast).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { resolveTarget } from '../../src/plugins/sources/market/target.js'
import { missedPrices } from '../../src/plugins/sources/market/missed.js'
import { createMarketClient } from '../../src/sdk/index.js'
import { startMockMarketServer, type MockMarketServer } from '../../src/sdk/mock/index.js'

const YES = '15353185604353847122370324954202969073036867278400776447048296624042585335546'
let mock: MockMarketServer | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const book = (m: MockMarketServer, mid: number, at: number): void =>
  m.publish({ event_type: 'book', asset_id: YES, market: '0x01', bids: [{ price: String(mid - 0.01), size: '1' }], asks: [{ price: String(mid + 0.01), size: '1' }], timestamp: String(at), hash: '0x' })

describe('missedPrices', () => {
  it('returns the points after the last observation, when the watch looks again less than a second later', async () => {
    mock = await startMockMarketServer({ tickMs: 0 })
    const pm = createMarketClient(mock)
    const target = await resolveTarget(pm, [YES], new AbortController().signal)
    const second = Math.floor(Date.now() / 1000) + 10
    const seen = second * 1000 + 900 // the last observation, late in its second
    book(mock, 0.2, seen)
    book(mock, 0.03, (second + 1) * 1000 + 50) // the trip, in the next second
    book(mock, 0.2, (second + 1) * 1000 + 80)
    // Back 300 ms after the last observation: the trip's second has begun, and its points are in the history.
    const missed = await missedPrices(pm, target, seen, seen + 300, new AbortController().signal)
    expect(missed.map((o) => (o.kind === 'top' ? [o.at, o.bid, o.fromHistory] : o.kind))).toEqual([
      [(second + 1) * 1000, 0.03, true],
      [(second + 1) * 1000, 0.2, true],
    ])
    // Still inside the last observation's second: no point can be after it, and the service is not asked.
    expect(await missedPrices(pm, target, seen - 500, seen + 50, new AbortController().signal)).toEqual([])
  })
})
