/**
 * `platforms.market`: a source that is not HTTP. Each watch follows a market through the SDK's stream and turns
 * the conditions it meets into events of the gateway's pipeline (docs/market-alerts.md). Off unless enabled.
 */
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { marketOptions } from './options.js'

/** The market source. */
export const marketPlugin = definePlugin({
  name: 'market',
  section: 'platforms.market',
  options: marketOptions,
  async setup(options, ctx) {
    if (!options.enabled) return { name: 'market' }
    // The SDK and the watches load only when a market is watched.
    const { marketSource } = await import('./source.js')
    return marketSource(options, ctx)
  },
})
