/** `state.driver: memory`: nothing survives the process (tests, embedding). */
export { memoryState, type MemoryStateOptions } from './memory-state.js'
export { memoryStatePlugin } from './plugin.js'
