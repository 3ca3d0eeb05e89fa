/** The per-route rolling-minute limit of one process, the default rate limiter. */
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { slidingWindowLimiter } from './sliding-window-limiter.js'

/** Rolling 60 s window per route, in this process. */
export const slidingWindowPlugin = definePlugin({
  name: 'sliding-window-limiter',
  setup: () => ({ name: 'sliding-window-limiter', rateLimiter: slidingWindowLimiter() }),
})
