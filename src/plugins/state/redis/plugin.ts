/**
 * `state.driver: redis`: several instances share one Redis. Its keys beside `driver` are `url` (a secret: it may
 * hold a password), `prefix`, `lock_seconds`, `command_timeout_seconds` and the retention. BullMQ and ioredis
 * load only when it is chosen.
 */
import * as v from 'valibot'
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { integer, nonBlank } from '../../../core/config/schema-kit.js'
import { retentionMs, retentionOptions } from '../retention.js'

/** `state:` keys of the Redis backend, with their defaults. */
export const redisStateOptions = v.object({
  url: v.pipe(
    nonBlank('the Redis URL, e.g. redis://10.0.0.5:6379 or ${REDIS_URL}'),
    v.check((url: string) => /^rediss?:\/\/[^\s]+$/.test(url), 'expected redis://host:port (or rediss:// for TLS), e.g. redis://127.0.0.1:6379'),
  ),
  prefix: v.optional(v.pipe(nonBlank('the key prefix, e.g. hookpilot'), v.regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . and - only, e.g. hookpilot')), 'hookpilot'),
  lock_seconds: v.optional(integer(1, 3_600), 30),
  // Well inside GitHub's 10 s: a request gives up at the first command Redis does not answer in time.
  command_timeout_seconds: v.optional(integer(1, 4), 2),
  ...retentionOptions,
})

/** The Redis state backend, with the shared rate limiter and subscription store. */
export const redisStatePlugin = definePlugin({
  name: 'redis',
  section: 'state',
  selectedBy: { key: 'driver', value: 'redis' },
  options: redisStateOptions,
  secrets: ['url'],
  async setup(options, ctx) {
    const { redisState } = await import('./redis-state.js')
    const redis = redisState({
      url: options.url,
      prefix: options.prefix,
      concurrency: ctx.config.agent.concurrency,
      maxQueue: ctx.config.agent.max_queue,
      lockMs: options.lock_seconds * 1000,
      commandTimeoutMs: options.command_timeout_seconds * 1000,
      ...retentionMs(options),
    })
    return { name: 'redis', ...redis }
  },
})
