// Every SDK test runs against the mock through msw, and any request it does not answer fails the test.
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, vi } from 'vitest'
import { createMarketClient, type MarketClientOptions } from '../../../src/sdk/index.js'
import { createMarketHandlers } from '../../../src/sdk/mock/handlers.js'

export const GAMMA = 'https://gamma-api.polymarket.com'
export const CLOB = 'https://clob.polymarket.com'
export const DATA = 'https://data-api.polymarket.com'

/** Starts msw with the mock handlers for the file; returns the server, the router and a request log. */
export function useMarketMock() {
  const mock = createMarketHandlers({ now: () => Date.UTC(2026, 10, 22, 12) })
  const server = setupServer(...mock.handlers)
  const requests: Request[] = []
  server.events.on('request:start', ({ request }) => {
    requests.push(request.clone())
  })
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
  afterEach(() => {
    server.resetHandlers()
    mock.router.reset()
    requests.length = 0
  })
  afterAll(() => server.close())
  return { server, router: mock.router, requests }
}

/** A client whose retries wait through a recorded, instant sleep. */
export function testClient(options: MarketClientOptions = {}) {
  const sleep = vi.fn(async (_ms: number, _signal: AbortSignal | undefined) => {})
  const pm = createMarketClient({ retry: { sleep }, ...options })
  return { pm, sleep }
}

/** The URLs requested, as `URL`s, for asserting on paths and parameters. */
export const urls = (requests: readonly Request[]): URL[] => requests.map((r) => new URL(r.url))
