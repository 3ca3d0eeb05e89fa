/** The built-in rate limiter: a rolling minute per key, in this process. */
export { slidingWindowLimiter, type SlidingWindowOptions } from './sliding-window-limiter.js'
export { slidingWindowPlugin } from './plugin.js'
