/**
 * The market source, once enabled: a client of the market services, one route per watch (its prompt, target
 * and rate limit), and the watches started when the gateway connects its intake, stopped when it closes.
 */
import { messageOf } from '../../../core/errors.js'
import type { GatewayPlugin, PluginRoute } from '../../../core/plugin-api/plugin.js'
import type { Clock, Logger } from '../../../core/types.js'
import { createMarketClient } from '../../../sdk/index.js'
import type { MarketOptions, WatchConfig } from './options.js'
import { routeOf, runWatch } from './watcher.js'

/** Asked when a watch gives no prompt. */
export const DEFAULT_MARKET_PROMPT = '{market.question}: {alert.summary}.'

/** The plugin of an enabled market source. */
export function marketSource(options: MarketOptions, ctx: { readonly log: Logger; readonly clock: Clock }): GatewayPlugin {
  const { extra } = options
  const pm = createMarketClient({ gammaUrl: extra.gamma_url, clobUrl: extra.clob_url, dataUrl: extra.data_url, wsUrl: extra.ws_url })
  const watches = Object.entries(extra.watches)
  const stop = new AbortController()
  const running: Promise<void>[] = []
  return {
    name: 'market',
    routes: watches.map(([name, watch]) => watchRoute(name, watch)),
    connect(intake, { state }) {
      for (const [name, watch] of watches) {
        const deps = { pm, intake, jobs: state.jobs, log: ctx.log, clock: ctx.clock, signal: stop.signal }
        running.push(runWatch(name, watch, deps).catch((err: unknown) => {
          if (!stop.signal.aborted) ctx.log.error('[market] watch stopped', { watch: name, reason: messageOf(err) })
        }))
      }
    },
    async close() {
      stop.abort()
      await Promise.all(running)
    },
  }
}

function watchRoute(name: string, watch: WatchConfig): PluginRoute {
  return {
    name: routeOf(name),
    configPath: `platforms.market.extra.watches.${name}`,
    secrets: [],
    events: [],
    actions: [],
    prompt: watch.prompt ?? DEFAULT_MARKET_PROMPT,
    skills: [],
    deliver: watch.deliver,
    deliverExtra: watch.deliver_extra,
    silentOutputs: [],
    rateLimit: watch.rate_limit,
    source: 'static',
    description: `market watch ${name}`,
  }
}
