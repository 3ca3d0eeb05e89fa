// pm.watch() against the shipped mock's market channel on a real port: real sockets, real drops, real freezes.
import { describe, expect, it } from 'vitest'
import { createMarketClient, MarketStreamError, MarketUsageError, type MarketEvent, type StreamEvent } from '../../src/sdk/index.js'
import { startMockMarketServer } from '../../src/sdk/mock/index.js'
import { reconnectDelayMs, webSocketImpl, type SocketFactory } from '../../src/sdk/stream/socket.js'
import { watchTokens } from '../../src/sdk/stream/watch.js'
import { FAST, SAMPLE_NO, SAMPLE_YES, SLUG, eventually, readUntil, sample, useMockMarket } from './helpers/stream.js'

const mock = useMockMarket()
const types = (events: readonly { type: string }[]) => events.map((e) => e.type)

async function market() {
  const pm = createMarketClient(mock)
  return { pm, m: pm.market(await pm.markets.bySlug(SLUG)) }
}

describe('pm.watch', () => {
  it('subscribes with the whole token set and gets a typed snapshot of each token, levels best first', async () => {
    const { pm, m } = await market()
    const stream = pm.watch(m, FAST)
    const it = stream[Symbol.asyncIterator]()
    const books = await readUntil(it, (s) => s.length === 2)
    expect(mock.received).toEqual([{ assets_ids: [m.yes.id, m.no.id], type: 'market', initial_dump: true, custom_feature_enabled: false }])
    const yes = books.find((e) => e.type === 'book' && e.tokenId === m.yes.id)
    expect(yes).toMatchObject({ type: 'book', market: m.market.conditionId, tickSize: 0.01, negRisk: true })
    if (yes?.type !== 'book') throw new Error('no book')
    expect(yes.bids.map((l) => l.price)).toEqual([0.64, 0.63, 0.62])
    expect(yes.asks.map((l) => l.price)).toEqual([0.65, 0.66, 0.67])
    expect(yes.timestamp).toBeInstanceOf(Date)
    stream.close()
  })

  it('yields the market moving: price changes, trades and the book after a trade', async () => {
    const { pm, m } = await market()
    const it = pm.watch(m.yes, FAST)[Symbol.asyncIterator]()
    await readUntil(it, (s) => s.length === 1)
    mock.tick(4)
    const events = await readUntil(it, (s) => s.length === 5)
    expect(types(events)).toEqual(['price_change', 'price_change', 'last_trade_price', 'book', 'price_change'])
    const first = events[0]
    if (first?.type !== 'price_change') throw new Error('expected a price_change')
    expect(first.changes).toEqual([
      { tokenId: m.yes.id, price: 0.64, size: expect.any(Number), side: 'buy', hash: expect.any(String), bestBid: 0.64, bestAsk: 0.65 },
    ])
    expect(events[2]).toMatchObject({ type: 'last_trade_price', tokenId: m.yes.id, price: 0.65, size: 10, side: 'buy', feeRateBps: 0 })
    await it.return?.()
  })

  it('reads every sample frame into typed events, custom ones only when asked for', async () => {
    const pm = createMarketClient(mock)
    const skipped: string[] = []
    const stream = pm.watch([SAMPLE_YES, SAMPLE_NO, '65818619657568813474341868652308942079804919287380422192892211131408793125422'], {
      ...FAST,
      customFeatures: true,
      onUnknownFrame: (_frame, reason) => skipped.push(reason),
    })
    // The socket opens when the loop starts reading.
    const reading = readUntil(stream[Symbol.asyncIterator](), (s) => s.length === 10)
    await eventually(() => mock.received.length === 1)
    for (const name of ['initial_dump_array', 'price_change', 'price_change_level_removed', 'last_trade_price', 'book', 'best_bid_ask', 'tick_size_change', 'new_market', 'market_resolved']) {
      mock.publish(sample(name))
    }
    const events: StreamEvent[] = await reading
    expect(types(events)).toEqual(['book', 'book', 'price_change', 'price_change', 'last_trade_price', 'book', 'best_bid_ask', 'tick_size_change', 'new_market', 'market_resolved'])
    expect(skipped).toEqual([])
    const [dumpYes, , change, removed, trade, , top, tick, listed, resolved] = events
    expect(dumpYes).toMatchObject({ tokenId: SAMPLE_YES, bids: [{ price: 0.49, size: 310 }, { price: 0.48 }, { price: 0.47 }], asks: [{ price: 0.51, size: 120 }, { price: 0.52 }, { price: 0.53 }], lastTradePrice: 0.5 })
    expect(change).toMatchObject({ type: 'price_change', changes: [{ tokenId: SAMPLE_YES, side: 'buy', price: 0.5, size: 200 }, { tokenId: SAMPLE_NO, side: 'sell' }] })
    expect(removed).toMatchObject({ changes: [{ price: 0.47, size: 0 }, { price: 0.53, size: 0 }] })
    expect(trade).toMatchObject({ price: 0.51, size: 100, side: 'buy', transactionHash: expect.stringMatching(/^0x/), timestamp: new Date(1757908893402) })
    expect(top).toMatchObject({ bestBid: 0.5, bestAsk: 0.51, spread: 0.01 })
    expect(tick).toMatchObject({ oldTickSize: 0.01, newTickSize: 0.001 })
    expect(listed).toMatchObject({ id: '1031769', outcomes: ['Yes', 'No'], tokenIds: [expect.stringMatching(/^7604/), expect.stringMatching(/^3169/)], tags: ['stocks'] })
    expect(resolved).toMatchObject({ winningOutcome: 'Yes', winningTokenId: expect.stringMatching(/^7604/) })
    stream.close()
  })
})

describe('frames that are not events', () => {
  it('skips plain text, unknown event types and the retired price_change shape without losing their siblings', async () => {
    const pm = createMarketClient(mock)
    const skipped: { frame: unknown; reason: string }[] = []
    const stream = pm.watch(SAMPLE_YES, { ...FAST, onUnknownFrame: (frame, reason) => skipped.push({ frame, reason }) })
    const reading = readUntil(stream[Symbol.asyncIterator](), (s) => s.length === 3)
    await eventually(() => mock.received.length === 1)
    const legacy = JSON.parse(sample('price_change_legacy_pre_2025-09-15')) as object
    const trade = JSON.parse(sample('last_trade_price')) as object
    mock.publish('NO NEW ASSETS')
    mock.publish('INVALID OPERATION')
    mock.publish('{"event_type": "book", ')
    mock.publish([legacy, { event_type: 'some_future_event', asset_id: SAMPLE_YES }, trade, { event_type: 'last_trade_price', asset_id: SAMPLE_YES, price: 'n/a', size: '1', side: 'BUY' }])
    // An initial snapshot without event_type, and the legacy side names.
    mock.publish({ asset_id: SAMPLE_YES, market: '0x5f', buys: [{ price: '.48', size: '10' }], sells: [{ price: '0.52', size: '5' }], timestamp: '1757908893417', hash: 'x' })
    // Another token's frame (after an unsubscribe, or a shared socket) is not ours.
    mock.publish({ ...trade, asset_id: SAMPLE_NO })
    mock.publish({ ...trade, side: 'sell', price: '0.4' })
    const events = await reading
    expect(events.map((e) => e.type)).toEqual(['last_trade_price', 'book', 'last_trade_price'])
    expect(events[1]).toMatchObject({ bids: [{ price: 0.48, size: 10 }], asks: [{ price: 0.52, size: 5 }] })
    expect(events[2]).toMatchObject({ side: 'sell', price: 0.4 })
    expect(skipped.map((s) => s.reason)).toEqual([
      'plain-text frame',
      'plain-text frame',
      'not JSON',
      'retired price_change shape (before 2025-09-15): no price_changes[]',
      'unknown event_type "some_future_event"',
      'malformed last_trade_price: price: expected a number or a decimal string',
    ])
    expect(skipped[0]?.frame).toBe('NO NEW ASSETS')
    expect(skipped[3]?.frame).toEqual(legacy)
    stream.close()
  })

  it('keeps only the watched tokens of a price_change that names others too', async () => {
    const pm = createMarketClient(mock)
    const stream = pm.watch(SAMPLE_NO, FAST)
    const reading = readUntil(stream[Symbol.asyncIterator](), (s) => s.length === 1)
    await eventually(() => mock.received.length === 1)
    mock.publish(sample('price_change'))
    const [change] = await reading
    expect(change).toMatchObject({ type: 'price_change', changes: [{ tokenId: SAMPLE_NO, side: 'sell' }] })
    if (change?.type === 'price_change') expect(change.changes).toHaveLength(1)
    stream.close()
  })
})

describe('connections', () => {
  it('reconnects after a drop, says so, and re-sends the whole subscription with its custom-feature flag', async () => {
    const { pm, m } = await market()
    const it = pm.watch(m, { ...FAST, customFeatures: true })[Symbol.asyncIterator]()
    await readUntil(it, (s) => s.length === 2)
    mock.drop()
    const after = await readUntil(it, (s) => s.length === 3)
    expect(after[0]).toMatchObject({ type: 'reconnected', tokenIds: [m.yes.id, m.no.id], reason: 'closed', attempts: 1, lostAt: expect.any(Date) })
    expect(types(after.slice(1))).toEqual(['book', 'book'])
    expect(mock.received).toHaveLength(2)
    expect(mock.received[1]).toEqual(mock.received[0])
    expect(mock.received[1]).toMatchObject({ custom_feature_enabled: true, initial_dump: true })
    await it.return?.()
  })

  it('gives up a frozen connection when no PONG comes within the heartbeat timeout, and reconnects', async () => {
    const { pm, m } = await market()
    const it = pm.watch(m.yes, FAST)[Symbol.asyncIterator]()
    await readUntil(it, (s) => s.length === 1)
    mock.freeze()
    const after = await readUntil(it, (s) => s.length === 2)
    expect(after[0]).toMatchObject({ type: 'reconnected', reason: 'heartbeat timeout' })
    expect(after[1]).toMatchObject({ type: 'book', tokenId: m.yes.id })
    // The frozen socket was dropped by the client, not left open beside the new one.
    await eventually(() => mock.connections === 1)
    await it.return?.()
  })

  it('closes the socket and ends the loop quietly when the signal aborts', async () => {
    const { pm, m } = await market()
    const controller = new AbortController()
    const seen: MarketEvent[] = []
    await eventually(() => mock.connections === 0)
    const loop = (async () => {
      for await (const e of pm.watch(m, { ...FAST, signal: controller.signal })) seen.push(e)
    })()
    await eventually(() => seen.length === 2)
    controller.abort(new Error('enough'))
    await expect(loop).resolves.toBeUndefined()
    await eventually(() => mock.connections === 0)
  })

  it('splits many tokens over several connections and keeps one copy of listing events', async () => {
    const pm = createMarketClient(mock)
    const markets = await pm.markets.where({ closed: false }).toArray({ max: 20 })
    // The mock's one book with `bids: null` has no snapshot on the channel: leave it out.
    const ids = (await pm.books(markets.flatMap((m) => pm.market(m).tokens.map((t) => t.id)))).filter((b) => b.bids.length > 0).map((b) => b.tokenId)
    const stream = pm.watch(ids, { ...FAST, customFeatures: true, tokensPerConnection: 4 })
    const it = stream[Symbol.asyncIterator]()
    const reading = readUntil(it, (s) => s.filter((e) => e.type === 'book').length === ids.length)
    const shards = Math.ceil(ids.length / 4)
    await eventually(() => mock.received.length === shards)
    const sent = mock.received.map((r) => (r as { assets_ids: string[] }).assets_ids)
    expect(sent.flat().sort()).toEqual([...ids].sort())
    expect(sent.every((a) => a.length <= 4)).toBe(true)
    await reading
    // Every connection gets the listing, then a marker after it on the same socket (frames keep their order).
    // publish() reaches every connection, so once all shards × shards markers are in, every listing was read.
    mock.publish(sample('new_market'))
    const trade = JSON.parse(sample('last_trade_price')) as object
    for (const shard of sent) mock.publish({ ...trade, asset_id: shard[0] })
    const after = await readUntil(it, (s) => s.filter((e) => e.type === 'last_trade_price').length === shards * shards)
    expect(after.filter((e) => e.type === 'new_market')).toHaveLength(1)
    stream.close()
  })

  it('fails the loop with MarketStreamError once reconnect.maxAttempts runs out', async () => {
    const gone = await startMockMarketServer({ tickMs: 0 })
    await gone.close()
    const pm = createMarketClient({ wsUrl: gone.wsUrl })
    const loop = (async () => {
      for await (const _ of pm.watch('123456789012', { ...FAST, reconnect: { baseDelayMs: 1, maxAttempts: 2 } })) void _
    })()
    const err = await loop.catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MarketStreamError)
    expect(err).toMatchObject({ code: 'ERR_MARKET_STREAM', message: expect.stringContaining('after 3 attempts') })
  })

  it('fails at once, with the cause, on a URL no WebSocket can open', async () => {
    const pm = createMarketClient({ wsUrl: 'http//not-a-url' })
    const loop = (async () => {
      for await (const _ of pm.watch('123456789012', FAST)) void _
    })()
    const err = await loop.catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MarketStreamError)
    expect(err).toMatchObject({ message: expect.stringContaining('Cannot open the market channel at http//not-a-url'), cause: expect.any(Error) })
  })

  it('waits a jittered, doubling, capped backoff between attempts', () => {
    const policy = { baseDelayMs: 100, maxDelayMs: 1000, maxAttempts: Infinity, random: () => 0.5 }
    expect([1, 2, 3, 4, 5, 6].map((n) => reconnectDelayMs(policy, n))).toEqual([50, 100, 200, 400, 500, 500])
    expect(reconnectDelayMs({ ...policy, random: () => 0 }, 3)).toBe(0)
  })

  it('uses the global WebSocket where there is one, else the ws package (Node 20) capped at maxFrameBytes', async () => {
    class Fake {}
    expect(await webSocketImpl({ WebSocket: Fake })).toBe(Fake)
    const { WebSocket } = await import('ws')
    const Capped = await webSocketImpl({})
    expect(Capped.prototype).toBeInstanceOf(WebSocket)
  })

  it('closes a connection that sends a frame over the cap (4 MiB by default), says why, and reconnects', async () => {
    const { pm, m } = await market()
    const it = pm.watch(m.yes, FAST)[Symbol.asyncIterator]()
    await readUntil(it, (s) => s.length === 1)
    // 5 MiB of one frame: ws's own default would take up to 100 MiB and parse it on the gateway's loop.
    mock.publish({ event_type: 'book', asset_id: m.yes.id, pad: 'x'.repeat(5 * 1024 * 1024) })
    const after = await readUntil(it, (s) => s.length === 2)
    expect(after[0]).toMatchObject({ type: 'reconnected', reason: `a frame over ${4 * 1024 * 1024} bytes (maxFrameBytes)` })
    expect(after[1]).toMatchObject({ type: 'book', tokenId: m.yes.id })
    expect(mock.received).toHaveLength(2)
    await it.return?.()
  })

  it('drops unparsed a frame over maxFrameBytes that a WebSocket without a cap (a global one) let through', async () => {
    const { WebSocket } = await import('ws')
    // The plain ws class, as a global WebSocket would be: nothing refuses the frame while it arrives.
    const it = watchTokens({ wsUrl: mock.wsUrl, WebSocket: WebSocket as unknown as SocketFactory }, [SAMPLE_YES], { ...FAST, maxFrameBytes: 64 * 1024 })[Symbol.asyncIterator]()
    const reading = readUntil(it, (s) => s.some((e) => e.type === 'reconnected'))
    await eventually(() => mock.received.length === 1)
    mock.publish({ event_type: 'book', asset_id: SAMPLE_YES, pad: 'x'.repeat(100 * 1024) })
    const after = await reading
    expect(after.find((e) => e.type === 'reconnected')).toMatchObject({ reason: `a frame over ${64 * 1024} bytes (maxFrameBytes)` })
    await it.return?.()
  })

  it('refuses what cannot be watched before opening anything', async () => {
    const { pm } = await market()
    const odd = pm.market(await pm.markets.bySlug('odd-market-without-outcomes'))
    expect(() => pm.watch(odd)).toThrow(MarketUsageError)
    expect(() => pm.watch('0xabc')).toThrow(/Not a token id/)
    expect(() => pm.watch({ label: 'Yes', price: null, tokenId: null })).toThrow(/has no order-book token/)
    expect(() => pm.watch('1234567890', { heartbeat: { intervalMs: 0 } })).toThrow(/heartbeat.intervalMs/)
    const once = pm.watch('1234567890')
    once[Symbol.asyncIterator]()
    expect(() => once[Symbol.asyncIterator]()).toThrow(/iterated once/)
    once.close()
  })
})
