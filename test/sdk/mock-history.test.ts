/**
 * The mock's `/prices-history` answers with the prices its market channel sent (docs/sdk.md, the mock): a
 * price that moved and came back while a client was away is in the history, as on the real service.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createMarketClient } from '../../src/sdk/index.js'
import { startMockMarketServer, type MockMarketServer } from '../../src/sdk/mock/index.js'

const YES = '15353185604353847122370324954202969073036867278400776447048296624042585335546'
let mock: MockMarketServer | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

describe('the mock price history', () => {
  it('holds every book the channel sent, from the first one on, at the second it was sent', async () => {
    mock = await startMockMarketServer({ tickMs: 0 })
    const pm = createMarketClient(mock)
    const now = Math.floor(Date.now() / 1000)
    const before = await pm.token(YES).history({ start: now - 3600, end: now + 60, fidelity: 1 })
    expect(before.length).toBeGreaterThan(0)
    const t = (now + 5) * 1000
    mock.publish({ event_type: 'book', asset_id: YES, market: '0x01', bids: [{ price: '0.19', size: '1' }], asks: [{ price: '0.21', size: '1' }], timestamp: String(t), hash: '0x' })
    mock.publish({ event_type: 'best_bid_ask', asset_id: YES, market: '0x01', best_bid: '0.02', best_ask: '0.04', spread: '0.02', timestamp: String(t + 1000) })
    const after = await pm.token(YES).history({ start: now - 3600, end: now + 60, fidelity: 1 })
    expect(after.slice(-2)).toEqual([{ t: now + 5, p: 0.2 }, { t: now + 6, p: 0.03 }])
    // The mock's own series stands before the first price sent, never after it.
    expect(after.slice(0, -2).every((p) => p.t < now + 5)).toBe(true)
  })
})
