/** `state.driver: redis`: several instances on one Redis (BullMQ queue, shared de-dup, limit and subscriptions). */
export { redisState, type RedisState, type RedisStateOptions } from './redis-state.js'
export { redisStatePlugin } from './plugin.js'
