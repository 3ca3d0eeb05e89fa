/**
 * `hookpilot/sdk/mock/msw`: msw handlers over the mock router, for tests that intercept `fetch` instead of running a
 * server. Apart from `hookpilot/sdk/mock` because msw is an optional peer dependency.
 */
import { http, type HttpHandler } from 'msw'
import { createMockMarketRouter, type MockRouterOptions, type MockMarketRouter } from './router.js'

/** The handlers and the router behind them (for `throttle`). */
export interface MarketMockHandlers {
  readonly handlers: HttpHandler[]
  readonly router: MockMarketRouter
}

/**
 * msw handlers answering the three services' base URLs (the real ones by default) from the mock data.
 *
 * @example
 * ```ts
 * const mock = createMarketHandlers()
 * const server = setupServer(...mock.handlers)
 * server.listen({ onUnhandledRequest: 'error' })
 * ```
 */
export function createMarketHandlers(options: MockRouterOptions = {}): MarketMockHandlers {
  const router = createMockMarketRouter(options)
  const { gammaUrl, clobUrl, dataUrl } = router.urls
  const handlers = [gammaUrl, clobUrl, dataUrl].map((base) =>
    // Returning undefined lets msw treat the request as unhandled (and fail under onUnhandledRequest: 'error').
    http.all(`${base.replace(/\/+$/, '')}/*`, async ({ request }) => router(request)),
  )
  return { handlers, router }
}

/** Ready-made handlers for the real services' URLs. */
export const marketHandlers: HttpHandler[] = createMarketHandlers().handlers
