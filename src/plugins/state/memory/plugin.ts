/** `state.driver: memory`: nothing survives the process (tests, embedding). */
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { memoryState } from './memory-state.js'

/** The in-memory state backend. */
export const memoryStatePlugin = definePlugin({
  name: 'memory',
  section: 'state',
  selectedBy: { key: 'driver', value: 'memory' },
  setup: (_options, ctx) => ({ name: 'memory', state: memoryState({ concurrency: ctx.config.agent.concurrency, maxQueue: ctx.config.agent.max_queue, now: ctx.clock }) }),
})
