/**
 * The bulk replay on the memory and SQLite backends: filters, both modes, a second run (Redis:
 * test/plugins/redis-replay.system.test.ts; 10,000 jobs in bounded memory: bulk-replay-10k.system.test.ts).
 */
import { bulkReplayCases } from '../fixtures/bulk-replay.js'
import { closeState, memoryBackend, sqliteBackend } from './replay-backends.js'

bulkReplayCases('memoryState', memoryBackend, closeState)
bulkReplayCases('sqliteState', sqliteBackend, closeState)
