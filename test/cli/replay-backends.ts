/** The backends the bulk-replay tests open: a memory one, and SQLite in a fresh folder. */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { StateBackend } from '../../src/core/jobs/lifecycle/state-backend.js'
import { silentLogger } from '../../src/core/log/logger.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { sqliteState } from '../../src/plugins/state/sqlite/sqlite-state.js'
import type { ReplayBackendOptions } from '../fixtures/bulk-replay.js'

export async function memoryBackend(options: ReplayBackendOptions): Promise<StateBackend> {
  const state = memoryState({ ...options, pollMs: 5 })
  await state.start?.({ log: silentLogger })
  return state
}

export async function sqliteBackend(options: ReplayBackendOptions): Promise<StateBackend> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-replay-'))
  const state = sqliteState({ ...options, path: join(dir, 'state.db'), pollMs: 5 })
  await state.start?.({ log: silentLogger })
  return state
}

export async function closeState(state: StateBackend): Promise<void> {
  await state.queue.stop(0)
  await state.close?.()
}
