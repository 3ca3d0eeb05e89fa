/** `state.driver: sqlite` (the default): its keys beside `driver` are `path`, `sync` and the retention. */
import { dirname, resolve } from 'node:path'
import * as v from 'valibot'
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { nonBlank } from '../../../core/config/schema-kit.js'
import { retentionMs, retentionOptions } from '../retention.js'

/** `state:` keys of the SQLite backend, with their defaults. */
export const sqliteStateOptions = v.object({
  path: v.optional(nonBlank('the state database file, e.g. .hookpilot/state.db'), '.hookpilot/state.db'),
  sync: v.optional(v.picklist(['normal', 'full'], 'expected normal (survives a killed process) or full (survives power loss)'), 'normal'),
  ...retentionOptions,
})

/** The SQLite state backend: a file beside the config, so nothing acknowledged is lost. */
export const sqliteStatePlugin = definePlugin({
  name: 'sqlite',
  section: 'state',
  selectedBy: { key: 'driver', value: 'sqlite' },
  options: sqliteStateOptions,
  async setup(options, ctx) {
    const { sqliteState } = await import('./sqlite-state.js')
    const path = resolve(ctx.baseDir, options.path)
    // Every stored payload and answer: its folder (the file and its -wal, -shm) is no agent's to read, unless
    // that folder is the config's, which may hold the agent's own scripts.
    const folder = dirname(path)
    const privatePaths = folder === resolve(ctx.baseDir) ? [path, `${path}-wal`, `${path}-shm`, `${path}-journal`] : [folder]
    return {
      name: 'sqlite',
      privatePaths,
      state: sqliteState({
        path,
        sync: options.sync,
        concurrency: ctx.config.agent.concurrency,
        maxQueue: ctx.config.agent.max_queue,
        now: ctx.clock,
        ...retentionMs(options),
      }),
    }
  },
})
