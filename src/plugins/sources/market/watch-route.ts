/**
 * The route of a watch's alerts: named `market:<watch>` (a `:` keeps it apart from every webhook route), so
 * `hookpilot jobs`, the job's log lines and the `route` label of the metrics name the watch.
 */
import type { PluginRoute } from '../../../core/plugin-api/gateway-plugin.js'
import type { WatchConfig } from './options.js'

/** Asked when a watch gives no prompt. */
export const DEFAULT_MARKET_PROMPT = '{market.question}: {alert.summary}.'

/** The route name of a watch. */
export const routeOf = (watch: string): string => `market:${watch}`

/** The watch a route name names, or undefined for a route that is not a watch's. */
export const watchOf = (route: string): string | undefined => (route.startsWith('market:') ? route.slice('market:'.length) : undefined)

/** The route of watch `name`: of config.yaml (`static`), or added by `hookpilot subscribe --market` (`dynamic`). */
export function watchRoute(name: string, watch: WatchConfig, source: 'static' | 'dynamic'): PluginRoute {
  return {
    name: routeOf(name),
    configPath: source === 'static' ? `platforms.market.extra.watches.${name}` : `watches.${name}`,
    secrets: [],
    events: [],
    actions: [],
    prompt: watch.prompt ?? DEFAULT_MARKET_PROMPT,
    skills: [],
    deliver: watch.deliver,
    deliverExtra: watch.deliver_extra,
    silentOutputs: [],
    rateLimit: watch.rate_limit,
    source,
    description: `market watch ${name}`,
  }
}
