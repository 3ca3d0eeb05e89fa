import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import pLimit from 'p-limit'
import { BadRequestError, MAX_TRADES_OFFSET, MarketUsageError } from '../../src/sdk/index.js'
import type { ClientContext } from '../../src/sdk/context.js'
import { TradesQuery } from '../../src/sdk/data/trades.js'
import { createTransport } from '../../src/sdk/http.js'
import { retryPolicy } from '../../src/sdk/retry.js'
import { CLOB, DATA, GAMMA, testClient, urls, useMarketMock } from './helpers/msw.js'

const { requests, server } = useMarketMock()
/** What a client hands its queries, made by hand so a query can hold a state its builders refuse. */
function bareContext(): ClientContext {
  const request = createTransport({ urls: { gamma: GAMMA, clob: CLOB, data: DATA }, fetch: undefined, timeoutMs: false, userAgent: 'test', retry: retryPolicy(false), limit: pLimit(1) })
  return { request }
}

const MSTR = '0x0216999502169995021699950216999502169995021699950216999502169995'

describe('trades', () => {
  it('walks a clamped offset list, advancing by what came back, until an empty page', async () => {
    const { pm } = testClient()
    const trades = await pm.trades.where({ market: MSTR }).toArray({ max: 1000 })
    expect(trades).toHaveLength(25)
    expect(urls(requests).map((u) => u.searchParams.get('offset'))).toEqual(['0', '10', '20', '25'])
    expect(trades[0]!.timestamp).toBeGreaterThan(trades[24]!.timestamp)
    expect(trades[0]).toMatchObject({ side: 'sell', conditionId: MSTR, tokenId: expect.stringMatching(/^\d{70,}$/) })
  })

  it('filters by side and several markets, one page at a time', async () => {
    const { pm } = testClient()
    const other = '0x0051672400516724005167240051672400516724005167240051672400516724'
    const sells = await pm.trades.where({ market: [MSTR, other], side: 'sell' }).limit(5).offset(5).list()
    expect(sells).toHaveLength(5)
    expect(sells.every((t) => t.side === 'sell')).toBe(true)
    const [u] = urls(requests)
    expect(u?.searchParams.get('market')).toBe(`${MSTR},${other}`)
    expect(u?.searchParams.get('side')).toBe('SELL')
    expect(u?.searchParams.get('offset')).toBe('5')
  })

  it('does not walk past offset 10,000, and reports the service refusing it', async () => {
    const { pm } = testClient()
    // The mock holds more than 10,000 trades: the walk reads the page at the cap, then stops instead of going past.
    const near = await pm.trades.offset(MAX_TRADES_OFFSET).toArray({ max: 50 })
    expect(near).toHaveLength(10)
    expect(urls(requests).map((u) => u.searchParams.get('offset'))).toEqual(['10000'])
    // offset() refuses this before any request (below), so build the query's state directly to reach the service.
    const deep = new TradesQuery(bareContext(), { filter: {}, offset: MAX_TRADES_OFFSET + 1 })
    const err = await deep.list().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BadRequestError)
    expect(err).toMatchObject({ serviceMessage: 'max historical trades offset of 10000 exceeded' })
    expect(urls(requests).at(-1)?.searchParams.get('offset')).toBe('10001')
  })

  it('refuses an offset over 10,000 when it is set, naming the limit, without a request', () => {
    const { pm } = testClient()
    expect(() => pm.trades.offset(MAX_TRADES_OFFSET + 1)).toThrow(MarketUsageError)
    expect(() => pm.trades.offset(MAX_TRADES_OFFSET + 1)).toThrow(/offset must be at most 10,000, the deepest the trades service serves/)
    expect(() => pm.trades.offset(-1)).toThrow(MarketUsageError)
    expect(pm.trades.offset(MAX_TRADES_OFFSET)).toBeInstanceOf(TradesQuery)
    expect(requests).toHaveLength(0)
  })

  it('filters by user wallet and sends takerOnly', async () => {
    const { pm } = testClient()
    const wallet = '0x1111111111111111111111111111111111111111'
    const mine = await pm.trades.where({ market: MSTR, user: wallet, takerOnly: true }).toArray({ max: 100 })
    expect(mine.length).toBeGreaterThan(0)
    expect(mine.every((t) => t.wallet === wallet)).toBe(true)
    const [u] = urls(requests)
    expect(u?.searchParams.get('user')).toBe(wallet)
    expect(u?.searchParams.get('takerOnly')).toBe('true')
  })
})

describe('open interest', () => {
  it('reads several markets at once, leaving out unknown ones', async () => {
    const { pm } = testClient()
    const rows = await pm.openInterest([MSTR, '0x0051672400516724005167240051672400516724005167240051672400516724', '0xdead'])
    expect(rows).toEqual([
      { market: '0x0051672400516724005167240051672400516724005167240051672400516724', value: 412331.102 },
      { market: MSTR, value: 0 },
    ])
  })

  it('gives null, not 0, when the service has no figure for a market', async () => {
    const { pm } = testClient()
    const fresh = pm.market(await pm.markets.bySlug('will-the-new-index-launch-by-friday'))
    expect(await pm.openInterest(fresh.market.conditionId)).toEqual([{ market: fresh.market.conditionId, value: null }])
    expect(await fresh.openInterest()).toBeNull()
    // An absent value is unknown too.
    server.use(http.get(`${DATA}/oi`, () => HttpResponse.json([{ market: MSTR }, { market: '0x01', value: '12.5' }])))
    expect(await pm.openInterest([MSTR, '0x01'])).toEqual([
      { market: MSTR, value: null },
      { market: '0x01', value: 12.5 },
    ])
  })
})
