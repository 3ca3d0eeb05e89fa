/**
 * `startMockMarketServer()`: the mock services on a real local port (node:http), one server for all three under
 * `/gamma`, `/clob` and `/data`, and the market WebSocket channel at `/ws/market` over books that move with time.
 * No msw here: the CLI's `--mock` and users without msw rely on that.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { adminAnswer, ADMIN_PATH } from './admin.js'
import { MockFeed } from './feed.js'
import { freshSeed } from './market-motion.js'
import { PriceRecord } from './price-record.js'
import { attachMarketChannel, MARKET_CHANNEL_PATH, type MarketChannel } from './market-channel.js'
import type { MockRateLimits } from './limiter.js'
import { createMockMarketRouter, type MockMarketUrls, type ThrottleOptions } from './router.js'

/** Options of {@link startMockMarketServer}. */
export interface MockServerOptions {
  /** Port to listen on (default 0: any free port). */
  readonly port?: number | undefined
  /** Interface to bind (default `127.0.0.1`). */
  readonly host?: string | undefined
  /** The mock's clock in unix ms (default `Date.now`). */
  readonly now?: (() => number) | undefined
  /** Ms between two moves of the market channel's books (default 500); 0 moves them only on `tick()`. */
  readonly tickMs?: number | undefined
  /** Models the published rate limits (`true`) or others (see `MockRouterOptions.rateLimits`); default off. */
  readonly rateLimits?: MockRateLimits | boolean | undefined
  /**
   * How the market channel's books move: `scripted` (the default), one small change in turn, the same in every
   * run (10-share trades, a midpoint that hardly moves), which tests count on; `market`, like a market, from
   * `seed`: a midpoint that wanders across the usual levels within a minute or two, and trades of many sizes
   * with an occasional block of thousands of shares.
   */
  readonly motion?: 'scripted' | 'market' | undefined
  /** The seed of `motion: 'market'` (default: a fresh one, in `MockMarketServer.seed`): the same seed, the same market. */
  readonly seed?: number | undefined
  /** Serves the hand controls `POST /admin/move` and `POST /admin/trade` (default off). */
  readonly admin?: boolean | undefined
  /** The most trades one `/trades` answer holds (default 10, so walks cross pages; the real service allows more). */
  readonly tradesPage?: number | undefined
}

/** A running mock server; spread it into `createMarketClient` to point a client at it (REST and WebSocket). */
export interface MockMarketServer extends MockMarketUrls, Omit<MarketChannel, 'close'> {
  /** The server's root URL. */
  readonly url: string
  /** The market channel, `ws://…/ws/market`. */
  readonly wsUrl: string
  /** The seed of `motion: 'market'` (print it: `seed` replays the run); `undefined` for the scripted steps. */
  readonly seed: number | undefined
  /** Answers the next `count` requests as throttled. */
  throttle(count: number, options?: ThrottleOptions): void
  /** Back to the start: no pending throttles, no frozen connections, `received` emptied, books as they started. */
  reset(): void
  /** Stops the server and closes every connection. */
  close(): Promise<void>
}

/**
 * Starts the mock services on a local port.
 *
 * @example
 * ```ts
 * const mock = await startMockMarketServer({ port: 0 })
 * const pm = createMarketClient(mock)          // gammaUrl, clobUrl, dataUrl and wsUrl
 * mock.drop()                                  // every stream reconnects
 * await mock.close()
 * ```
 */
export async function startMockMarketServer(options: MockServerOptions = {}): Promise<MockMarketServer> {
  const now = options.now ?? Date.now
  const feed = new MockFeed(now, options.motion === 'market' ? (options.seed ?? freshSeed()) : undefined)
  let route = createMockMarketRouter({ now })
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err) }))
    })
  })
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined
    const headers = Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : []))
    const request = new Request(new URL(req.url ?? '/', url), { method: req.method ?? 'GET', headers, ...(body ? { body } : {}) })
    const admin = options.admin === true && new URL(request.url).pathname.startsWith(ADMIN_PATH)
    const response = (admin ? await adminAnswer(request, channel) : await route(request)) ?? new Response('{"error":"not found"}', { status: 404 })
    res.writeHead(response.status, Object.fromEntries(response.headers))
    res.end(Buffer.from(await response.arrayBuffer()))
  }
  const prices = new PriceRecord()
  const channel = attachMarketChannel(server, feed, options.tickMs ?? 500, prices)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve())
  })
  const { address, port } = server.address() as AddressInfo
  const host = address.includes(':') ? `[${address}]` : address
  const url = `http://${host}:${port}`
  const urls = { gammaUrl: `${url}/gamma`, clobUrl: `${url}/clob`, dataUrl: `${url}/data` }
  // REST `/book` reads the channel's live books, and `/prices-history` the prices it sent, so REST agrees with the stream.
  route = createMockMarketRouter({ urls, now, rateLimits: options.rateLimits, tradesPage: options.tradesPage }, (id) => feed.book(id), (id) => prices.points(id))
  return {
    url,
    ...urls,
    wsUrl: `ws://${host}:${port}${MARKET_CHANNEL_PATH}`,
    seed: feed.seed,
    throttle: (count, o) => route.throttle(count, o),
    drop: () => channel.drop(),
    freeze: () => channel.freeze(),
    tick: (steps) => channel.tick(steps),
    move: (tokenId, price) => channel.move(tokenId, price),
    trade: (tokenId, size, side) => channel.trade(tokenId, size, side),
    publish: (frame) => channel.publish(frame),
    received: channel.received,
    get connections() {
      return channel.connections
    },
    reset() {
      route.reset()
      channel.reset()
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        channel.close()
        server.closeAllConnections()
        server.close((err) => (err ? reject(err) : resolve()))
      }),
  }
}
