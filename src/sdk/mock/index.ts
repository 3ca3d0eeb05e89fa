/**
 * `hookpilot/sdk/mock`: the market services' mock, for testing scripts offline. `startMockMarketServer` runs it on
 * a local port; `createMarketHandlers`/`marketHandlers` plug it into msw (an optional peer dependency, needed only
 * for those two).
 *
 * @example
 * ```ts
 * import { startMockMarketServer } from 'hookpilot/sdk/mock'
 * const mock = await startMockMarketServer({ port: 0 })
 * const pm = createMarketClient(mock)
 * ```
 * @packageDocumentation
 */
export { startMockMarketServer } from './server.js'
export type { MockServerOptions, MockMarketServer } from './server.js'
export { createMockMarketRouter } from './router.js'
export type { MockMarketRouter, MockMarketUrls, MockRouterOptions, ThrottleOptions } from './router.js'
export { createMarketHandlers, marketHandlers } from './handlers.js'
export type { MarketMockHandlers } from './handlers.js'
export { MAX_GAMMA_OFFSET } from './gamma.js'
