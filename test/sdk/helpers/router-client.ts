// A client over the mock's fetch-style router (no msw, no socket): for tests that make hundreds of calls.
import { createMarketClient, type MarketClientOptions } from '../../../src/sdk/index.js'
import { createMockMarketRouter, type MockRouterOptions } from '../../../src/sdk/mock/router.js'

/** The mock's clock in the SDK tests: a fixed instant, so series and trades do not move between calls. */
export const MOCK_NOW = Date.UTC(2026, 10, 22, 12)

/** A client whose requests the mock router answers; `requests` lists the URLs asked, in order. */
export function routerClient(options: MarketClientOptions = {}, mock: MockRouterOptions = {}) {
  const router = createMockMarketRouter({ now: () => MOCK_NOW, ...mock })
  const requests: URL[] = []
  const pm = createMarketClient({
    retry: { sleep: async () => {} },
    ...options,
    fetch: async (input, init) => {
      const request = new Request(input, init)
      requests.push(new URL(request.url))
      return (await router(request)) ?? new Response('{"error":"not routed"}', { status: 599 })
    },
  })
  return { pm, router, requests }
}
