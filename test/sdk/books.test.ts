// pm.watchBooks() against the shipped mock's market channel: local books from snapshots and deltas, checked, rebuilt.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMarketClient, type BookUpdate, type Level } from '../../src/sdk/index.js'
import { startMockMarketServer, type MockMarketServer } from '../../src/sdk/mock/index.js'
import { LocalBook } from '../../src/sdk/stream/order-book.js'
import { FAST, SAMPLE_NO, SAMPLE_YES, eventually, readUntil, sample } from './helpers/stream.js'

let mock: MockMarketServer
beforeAll(async () => {
  mock = await startMockMarketServer({ port: 0, tickMs: 0 })
})
afterEach(() => mock.reset())
afterAll(() => mock.close())

const prices = (levels: readonly Level[]) => levels.map((l) => l.price)

describe('LocalBook', () => {
  const book = () =>
    new LocalBook({ tokenId: '1', market: '0x', bids: [{ price: 0.5, size: 1 }, { price: 0.4, size: 1 }], asks: [{ price: 0.6, size: 1 }], tickSize: 0.01, minOrderSize: null, negRisk: false, timestamp: null })

  it('keeps levels sorted best first, sets absolute sizes and removes a level at size 0', () => {
    const b = book()
    b.set('buy', 0.45, 7, null)
    b.set('buy', 0.55, 2, null)
    b.set('buy', 0.4, 0, null)
    b.set('sell', 0.58, 3, null)
    b.set('sell', 0.6, 9, null)
    expect(b.book.bids).toEqual([{ price: 0.55, size: 2 }, { price: 0.5, size: 1 }, { price: 0.45, size: 7 }])
    expect(b.book.asks).toEqual([{ price: 0.58, size: 3 }, { price: 0.6, size: 9 }])
    b.set('sell', 0.7, 0, null)
    expect(prices(b.book.asks)).toEqual([0.58, 0.6])
  })

  it('never changes a book already handed out', () => {
    const b = book()
    const before = b.book
    b.set('buy', 0.5, 0, new Date(5))
    expect(prices(before.bids)).toEqual([0.5, 0.4])
    expect(prices(b.book.bids)).toEqual([0.4])
    expect(b.book.timestamp).toEqual(new Date(5))
  })

  it('checks its top against a best bid and ask', () => {
    const b = book()
    expect(b.agrees(0.5, 0.6)).toBe(true)
    expect(b.agrees(null, null)).toBe(true)
    expect(b.agrees(0.49, 0.6)).toBe(false)
    expect(b.agrees(0.5, 0.61)).toBe(false)
  })
})

describe('pm.watchBooks', () => {
  it('keeps a book from the sample frames: wire order sorted, mirrored changes, removed levels', async () => {
    const pm = createMarketClient(mock)
    const stream = pm.watchBooks([SAMPLE_YES, SAMPLE_NO], FAST)
    const reading = readUntil(stream[Symbol.asyncIterator](), (s) => s.length === 6)
    await eventually(() => mock.received.length === 1)
    for (const name of ['initial_dump_array', 'price_change', 'price_change_level_removed']) mock.publish(sample(name))
    const updates: BookUpdate[] = await reading
    expect(updates.map((u) => `${u.source}:${u.tokenId.slice(0, 4)}`)).toEqual([
      'snapshot:7132', 'snapshot:5211', 'change:7132', 'change:5211', 'change:7132', 'change:5211',
    ])
    const yes = updates[4]!.book
    expect(yes.bids).toEqual([{ price: 0.5, size: 200 }, { price: 0.49, size: 310 }, { price: 0.48, size: 830.5 }])
    expect(prices(yes.asks)).toEqual([0.51, 0.52, 0.53])
    const no = updates[5]!.book
    expect(prices(no.asks)).toEqual([0.5, 0.51, 0.52])
    expect(prices(no.bids)).toEqual([0.49, 0.48, 0.47])
    // An earlier update is a value: later changes did not touch it.
    expect(prices(updates[0]!.book.bids)).toEqual([0.49, 0.48, 0.47])
    stream.close()
  })

  it('agrees with the REST book of the same mock after the market has moved', async () => {
    const pm = createMarketClient(mock)
    const m = pm.market(await pm.markets.bySlug('will-2-fed-rate-cuts-happen-in-2025'))
    const it = pm.watchBooks(m, FAST)[Symbol.asyncIterator]()
    await readUntil(it, (s) => s.length === 2)
    mock.tick(12)
    const updates = await readUntil(it, (s) => s.length === 12)
    expect(new Set(updates.map((u) => u.source))).toEqual(new Set(['change', 'snapshot']))
    const latest = (id: string) => updates.filter((u) => u.tokenId === id).at(-1)!.book
    for (const token of [m.yes, m.no]) {
      const rest = await token.book()
      expect(latest(token.id).bids).toEqual(rest.bids)
      expect(latest(token.id).asks).toEqual(rest.asks)
    }
    await it.return?.()
  })

  it('refetches a book over REST when a frame says its top is something else', async () => {
    const pm = createMarketClient(mock)
    const m = pm.market(await pm.markets.bySlug('will-2-fed-rate-cuts-happen-in-2025'))
    const it = pm.watchBooks(m.yes, FAST)[Symbol.asyncIterator]()
    await readUntil(it, (s) => s.length === 1)
    // A change whose best bid the local book cannot have: 0.64 stays the best bid, the frame claims 0.7.
    const entry = { asset_id: m.yes.id, price: '0.5', size: '10', side: 'BUY', hash: 'x', best_bid: '0.7', best_ask: '0.71' }
    mock.publish({ event_type: 'price_change', market: m.market.conditionId, price_changes: [entry], timestamp: '1' })
    const [update] = await readUntil(it, (s) => s.length === 1)
    expect(update?.source).toBe('resync')
    // The REST book, which never had the 0.5 level of the bad frame.
    expect(prices(update!.book.bids)).toEqual([0.64, 0.63, 0.62])
    await it.return?.()
  })

  it('checks the book against best_bid_ask (custom features) and takes tick-size changes', async () => {
    const pm = createMarketClient(mock)
    const m = pm.market(await pm.markets.bySlug('will-2-fed-rate-cuts-happen-in-2025'))
    const it = pm.watchBooks(m.yes, { ...FAST, customFeatures: true })[Symbol.asyncIterator]()
    await readUntil(it, (s) => s.length === 1)
    const tick = { event_type: 'tick_size_change', asset_id: m.yes.id, market: m.market.conditionId, old_tick_size: '0.01', new_tick_size: '0.001', timestamp: '1757912044871' }
    const agreeing = { event_type: 'best_bid_ask', asset_id: m.yes.id, market: m.market.conditionId, best_bid: '0.64', best_ask: '0.65', spread: '0.01', timestamp: '1' }
    mock.publish(tick)
    mock.publish(agreeing)
    mock.publish({ ...agreeing, best_ask: '0.66' })
    const updates = await readUntil(it, (s) => s.length === 2)
    expect(updates.map((u) => u.source)).toEqual(['change', 'resync'])
    expect(updates[0]?.book.tickSize).toBe(0.001)
    expect(prices(updates[1]!.book.asks)).toEqual([0.65, 0.66, 0.67])
    await it.return?.()
  })

  it('drops its books on a reconnect and rebuilds them from the fresh snapshot', async () => {
    const pm = createMarketClient(mock)
    const it = pm.watchBooks(SAMPLE_YES, FAST)[Symbol.asyncIterator]()
    const first = readUntil(it, (s) => s.length === 1)
    await eventually(() => mock.received.length === 1)
    mock.publish(sample('initial_dump_array'))
    expect((await first)[0]?.source).toBe('snapshot')
    mock.drop()
    // The mock has no snapshot of the samples' tokens: after the reconnect the book stays unknown until one is sent,
    // so the delta below has nothing to apply to and yields nothing.
    await eventually(() => mock.received.length === 2)
    const next = readUntil(it, (s) => s.length === 1)
    mock.publish(sample('price_change'))
    mock.publish(sample('book'))
    const [update] = await next
    expect(update).toMatchObject({ source: 'snapshot', tokenId: SAMPLE_YES })
    expect(update!.book.bids[0]).toEqual({ price: 0.5, size: 200 })
    await it.return?.()
  })
})
