/** 10,000 failed jobs replayed holding one page at a time, on the memory and SQLite backends (Redis: redis-replay.system.test.ts). */
import { bulkReplayMemoryCase } from '../fixtures/bulk-replay.js'
import { closeState, memoryBackend, sqliteBackend } from './replay-backends.js'

bulkReplayMemoryCase('memoryState', memoryBackend, closeState)
bulkReplayMemoryCase('sqliteState', sqliteBackend, closeState)
