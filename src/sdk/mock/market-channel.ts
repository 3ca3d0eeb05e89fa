/**
 * The mock's market channel: a WebSocket endpoint (`/ws/market`) on the mock server, speaking the real channel's
 * protocol (a `type: market` subscription with an initial dump, `operation` subscribe/unsubscribe, `PING`/`PONG`,
 * the plain-text replies) over the live books of {@link MockFeed}. `drop()` and `freeze()` break connections the
 * two ways real ones break, so users can test their reconnect handling.
 */
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import type { FeedFrame, MockFeed } from './feed.js'
import type { PriceRecord } from './price-record.js'

/** Path of the channel on the mock server. */
export const MARKET_CHANNEL_PATH = '/ws/market'

interface Subscriber {
  readonly socket: WebSocket
  readonly assets: Set<string>
  subscribed: boolean
  custom: boolean
  /** Frozen: the socket stays open and answers nothing, not even `PONG`. */
  frozen: boolean
}

/** The controls of the channel. */
export interface MarketChannel {
  /** Closes every open connection abruptly, without a closing handshake (as a network failure does). */
  drop(): void
  /** Every open connection stops answering (no data, no `PONG`) but stays open; new connections work. */
  freeze(): void
  /** Moves the market `steps` steps now and sends the frames (the timer does the same every `tickMs`). */
  tick(steps?: number): void
  /**
   * Puts a token's midpoint at `price` by hand and sends its new book; `false` for a token with no live book
   * (closed or unknown). The market motion wanders on from there.
   */
  move(tokenId: string, price: number): boolean
  /** Sends a trade of `size` shares of a token by hand (at the best ask for a buy); `false` as for `move`. */
  trade(tokenId: string, size: number, side?: 'BUY' | 'SELL'): boolean
  /** Sends a frame as is (an object or array as JSON, a string as text) to every subscribed, unfrozen connection. */
  publish(frame: unknown): void
  /** The JSON messages clients sent (subscriptions and operations, not `PING`), oldest first. */
  readonly received: readonly unknown[]
  /** Open connections. */
  readonly connections: number
  /** Unfreezes, forgets `received` and puts the books back as they started. */
  reset(): void
  close(): void
}

/** Attaches the channel to `server`'s upgrade requests and starts its timer (`tickMs` 0: only `tick()` moves it). */
export function attachMarketChannel(server: Server, feed: MockFeed, tickMs: number, prices?: PriceRecord): MarketChannel {
  const wss = new WebSocketServer({ noServer: true })
  const subscribers = new Set<Subscriber>()
  const received: unknown[] = []

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== MARKET_CHANNEL_PATH) return void socket.destroy()
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws))
  })

  function accept(socket: WebSocket): void {
    const sub: Subscriber = { socket, assets: new Set(), subscribed: false, custom: false, frozen: false }
    subscribers.add(sub)
    socket.on('close', () => subscribers.delete(sub))
    socket.on('error', () => subscribers.delete(sub))
    socket.on('message', (data, isBinary) => {
      if (sub.frozen || isBinary) return
      // ws's default binaryType ('nodebuffer') hands every frame over as one Buffer.
      const text = (data as Buffer).toString()
      if (text === 'PING') return socket.send('PONG')
      let msg: Record<string, unknown>
      try {
        msg = JSON.parse(text) as Record<string, unknown>
      } catch {
        return socket.send('INVALID OPERATION')
      }
      received.push(msg)
      onMessage(sub, msg)
    })
  }

  function onMessage(sub: Subscriber, msg: Record<string, unknown>): void {
    const ids = Array.isArray(msg['assets_ids']) ? msg['assets_ids'].filter((x): x is string => typeof x === 'string') : undefined
    if (ids === undefined) return sub.socket.send('INVALID OPERATION')
    if (typeof msg['custom_feature_enabled'] === 'boolean') sub.custom = msg['custom_feature_enabled']
    if (String(msg['type']).toLowerCase() === 'market') {
      if (sub.subscribed) return sub.socket.send('INVALID OPERATION')
      sub.subscribed = true
      for (const id of ids) sub.assets.add(id)
      if (msg['initial_dump'] !== false) dump(sub, ids)
    } else if (msg['operation'] === 'subscribe') {
      const fresh = ids.filter((id) => !sub.assets.has(id))
      if (fresh.length === 0) return sub.socket.send('NO NEW ASSETS')
      for (const id of fresh) sub.assets.add(id)
      dump(sub, fresh)
    } else if (msg['operation'] === 'unsubscribe') {
      for (const id of ids) sub.assets.delete(id)
    } else {
      sub.socket.send('INVALID OPERATION')
    }
  }

  // The initial dump comes as one array of `book` events, as on the real channel.
  function dump(sub: Subscriber, ids: readonly string[]): void {
    const books = ids.flatMap((id) => {
      const book = feed.book(id)
      return book === undefined ? [] : [{ event_type: 'book', ...book }]
    })
    if (books.length > 0) sub.socket.send(JSON.stringify(books))
  }

  const live = (): Subscriber[] => [...subscribers].filter((s) => s.subscribed && !s.frozen)

  function send(frames: readonly FeedFrame[]): void {
    for (const frame of frames) {
      prices?.record(frame.payload, Date.now())
      const text = JSON.stringify(frame.payload)
      for (const s of live()) if (s.assets.has(frame.tokenId) && (s.custom || !frame.custom)) s.socket.send(text)
    }
  }

  function tick(steps = 1): void {
    for (let i = 0; i < steps; i++) {
      const watched = [...new Set(live().flatMap((s) => [...s.assets]))].sort()
      send(feed.step(watched))
    }
  }

  const timer = tickMs > 0 ? setInterval(() => tick(), tickMs) : undefined
  timer?.unref()

  return {
    drop() {
      for (const s of subscribers) s.socket.terminate()
    },
    freeze() {
      for (const s of subscribers) s.frozen = true
    },
    tick,
    move(tokenId, price) {
      if (!feed.has(tokenId)) return false
      send(feed.move(tokenId, price))
      return true
    },
    trade(tokenId, size, side) {
      if (!feed.has(tokenId)) return false
      send(feed.trade(tokenId, size, side))
      return true
    },
    publish(frame) {
      prices?.record(frame, Date.now())
      const text = typeof frame === 'string' ? frame : JSON.stringify(frame)
      for (const s of live()) s.socket.send(text)
    },
    received,
    get connections() {
      return subscribers.size
    },
    reset() {
      for (const s of subscribers) s.frozen = false
      received.length = 0
      feed.reset()
      prices?.reset()
    },
    close() {
      clearInterval(timer)
      for (const s of subscribers) s.socket.terminate()
      wss.close()
    },
  }
}
