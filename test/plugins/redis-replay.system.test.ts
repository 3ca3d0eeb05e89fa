/** The bulk replay on Redis: filters, both modes, a second run, and 10,000 failed jobs in bounded memory. */
import type { StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
import { silentLogger } from '../../src/core/log/logger.js'
import { redisState } from '../../src/plugins/state/redis/redis-state.js'
import { bulkReplayCases, bulkReplayMemoryCase, type ReplayBackendOptions } from '../fixtures/bulk-replay.js'
import { useRedis } from '../fixtures/redis.js'

const redis = useRedis()

let counter = 0
async function redisBackend(options: ReplayBackendOptions): Promise<StateBackend> {
  const { state } = redisState({ url: redis.url, prefix: `replay${++counter}`, ...options })
  await state.start?.({ log: silentLogger })
  return state
}
const close = async (state: StateBackend) => {
  await state.queue.stop(0)
  await state.close?.()
}

bulkReplayCases('redisState', redisBackend, close)
bulkReplayMemoryCase('redisState', redisBackend, close)
