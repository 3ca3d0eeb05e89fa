/**
 * The market source, once enabled: a client of the market services, one route per watch (its prompt, target
 * and rate limit), and the watches started when the gateway connects its intake, stopped when it closes. The
 * watches of config.yaml are declared at setup; those `hookpilot subscribe --market` adds are followed in the
 * gateway's subscription store and start and stop without a restart.
 */
import { messageOf } from '../../../core/errors.js'
import type { GatewayPlugin } from '../../../core/plugin-api/gateway-plugin.js'
import type { Clock, Logger } from '../../../core/types.js'
import { createMarketClient } from '../../../sdk/index.js'
import type { MarketOptions, WatchConfig } from './options.js'
import { followSubscribedWatches, type Following } from './subscribed.js'
import { runWatch, type WatchDeps } from './watcher.js'
import { routeOf, watchRoute } from './watch-route.js'

/** The plugin of an enabled market source. */
export function marketSource(options: MarketOptions, ctx: { readonly log: Logger; readonly clock: Clock }): GatewayPlugin {
  const { extra } = options
  const pm = createMarketClient({ gammaUrl: extra.gamma_url, clobUrl: extra.clob_url, dataUrl: extra.data_url, wsUrl: extra.ws_url })
  const watches = Object.entries(extra.watches)
  const stop = new AbortController()
  const running: Promise<void>[] = []
  let following: Following | undefined
  return {
    name: 'market',
    routes: watches.map(([name, watch]) => watchRoute(name, watch, 'static')),
    connect(intake, { state, routes, subscriptions }) {
      const deps = (signal: AbortSignal): WatchDeps => ({ pm, intake, jobs: state.jobs, log: ctx.log, clock: ctx.clock, signal })
      const run = (name: string, watch: WatchConfig, signal: AbortSignal) =>
        runWatch(name, watch, deps(signal)).catch((err: unknown) => {
          if (!signal.aborted) ctx.log.error('[market] watch stopped', { watch: name, reason: messageOf(err) })
        })
      for (const [name, watch] of watches) running.push(run(name, watch, stop.signal))
      if (subscriptions === undefined) return undefined
      following = followSubscribedWatches({
        store: subscriptions,
        configured: new Set(Object.keys(extra.watches)),
        log: ctx.log,
        start(name, watch) {
          const problem = routes.add(watchRoute(name, watch, 'dynamic'))
          if (problem !== undefined) return problem
          const own = new AbortController()
          const abort = () => own.abort()
          stop.signal.addEventListener('abort', abort, { once: true })
          const done = run(name, watch, own.signal)
          ctx.log.info('[market] subscribed watch started', { watch: name })
          return async () => {
            own.abort()
            stop.signal.removeEventListener('abort', abort)
            await done
            routes.remove(routeOf(name))
          }
        },
      })
      // The gateway runs no job before the subscribed watches' routes are back (a job of one left from before a
      // restart finds its route).
      return following.ready
    },
    async close() {
      stop.abort()
      await Promise.all([following?.stop(), ...running])
    },
  }
}
