/** `state.driver: sqlite` (the default): its keys beside `driver` are `path`, `sync` and the retention. */
import { resolve } from 'node:path'
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
    return {
      name: 'sqlite',
      state: sqliteState({
        path: resolve(ctx.baseDir, options.path),
        sync: options.sync,
        concurrency: ctx.config.agent.concurrency,
        maxQueue: ctx.config.agent.max_queue,
        now: ctx.clock,
        ...retentionMs(options),
      }),
    }
  },
})
