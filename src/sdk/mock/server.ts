/**
 * `startMockMarketServer()`: the mock services on a real local port (node:http), one server for all three under
 * `/gamma`, `/clob` and `/data`. No msw here: the CLI's `--mock` and users without msw rely on that.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createMockMarketRouter, type MockMarketUrls, type ThrottleOptions } from './router.js'

/** Options of {@link startMockMarketServer}. */
export interface MockServerOptions {
  /** Port to listen on (default 0: any free port). */
  readonly port?: number | undefined
  /** Interface to bind (default `127.0.0.1`). */
  readonly host?: string | undefined
  /** The mock's clock in unix ms (default `Date.now`). */
  readonly now?: (() => number) | undefined
}

/** A running mock server; spread it into `createMarketClient` to point a client at it. */
export interface MockMarketServer extends MockMarketUrls {
  /** The server's root URL. */
  readonly url: string
  /** Answers the next `count` requests as throttled. */
  throttle(count: number, options?: ThrottleOptions): void
  /** Stops the server. */
  close(): Promise<void>
}

/**
 * Starts the mock services on a local port.
 *
 * @example
 * ```ts
 * const mock = await startMockMarketServer({ port: 0 })
 * const pm = createMarketClient({ gammaUrl: mock.gammaUrl, clobUrl: mock.clobUrl, dataUrl: mock.dataUrl })
 * await mock.close()
 * ```
 */
export async function startMockMarketServer(options: MockServerOptions = {}): Promise<MockMarketServer> {
  let route = createMockMarketRouter({ now: options.now })
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
    const response = (await route(request)) ?? new Response('{"error":"not found"}', { status: 404 })
    res.writeHead(response.status, Object.fromEntries(response.headers))
    res.end(Buffer.from(await response.arrayBuffer()))
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve())
  })
  const { address, port } = server.address() as AddressInfo
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`
  const urls = { gammaUrl: `${url}/gamma`, clobUrl: `${url}/clob`, dataUrl: `${url}/data` }
  route = createMockMarketRouter({ urls, now: options.now })
  return {
    url,
    ...urls,
    throttle: (count, o) => route.throttle(count, o),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((err) => (err ? reject(err) : resolve()))
      }),
  }
}
