/**
 * The jobs view `hookpilot jobs` works on: the state store the config names, opened for reading and operator
 * changes only. It never recovers or runs jobs (that is the serving process's work), so it is safe to use
 * while `hookpilot serve` runs.
 */
import { resolve } from 'node:path'
import type { HookpilotConfig } from '../core/config/config.js'
import { GatewayError } from '../core/errors.js'
import type { JobsView } from '../core/jobs/state-backend.js'
import * as v from 'valibot'
import { groupCommit, openStateDb, sqliteJobsView } from '../plugins/state/sqlite/sqlite-state.js'
import { sqliteStateOptions } from '../plugins/state/sqlite/plugin.js'
import { openState } from './state-access.js'

/** The SQLite backend's options in `state:` (validated when the config was loaded; parsed again for their type). */
export function sqliteOptions(config: HookpilotConfig): v.InferOutput<typeof sqliteStateOptions> {
  return v.parse(sqliteStateOptions, config.state)
}

/** An open jobs view and how to close it. */
export interface OpenJobs {
  readonly jobs: JobsView
  /** Where the jobs live, for messages. */
  readonly where: string
  close(): Promise<void>
}

/** Opens the jobs view of `config` (relative paths from `baseDir`, the config file's folder). */
export async function openJobs(config: HookpilotConfig, baseDir: string): Promise<OpenJobs> {
  const { state } = config
  if (state.driver === 'memory') {
    throw new GatewayError(
      'ERR_STATE',
      'state.driver is memory: jobs live only inside the running gateway and cannot be listed from outside it. Use state.driver: sqlite (the default) to keep them.',
    )
  }
  if (state.driver !== 'sqlite') {
    // A shared backend (Redis) is opened as a gateway would, without its worker: safe beside running instances.
    const opened = await openState(config, baseDir)
    if (!opened) throw new GatewayError('ERR_STATE', `state.driver "${state.driver}" names no state backend hookpilot jobs can open.`)
    return { jobs: opened.state.jobs, where: opened.state.where ?? `state.driver ${state.driver}`, close: () => opened.close() }
  }
  // SQLite is opened directly, not started: a start recovers jobs, which is the serving process's work.
  const { path: file, sync } = sqliteOptions(config)
  const path = resolve(baseDir, file)
  const db = openStateDb(path, sync)
  const writer = groupCommit(db)
  return {
    jobs: sqliteJobsView(db, writer, Date.now),
    where: path,
    async close() {
      await writer.run(() => {})
      db.close()
    },
  }
}
