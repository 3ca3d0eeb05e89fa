/**
 * `hookpilot/sdk/mock`: the market services' mock, for testing scripts offline. `startMockMarketServer` runs it on
 * a local port (REST and the market WebSocket channel); `createMockMarketRouter` is its fetch-style core. Nothing
 * here needs msw: its handlers are in `hookpilot/sdk/mock/msw`, for those who have it.
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
export { MAX_GAMMA_OFFSET } from './gamma.js'
export type { MockRateLimits } from './limiter.js'
