/**
 * `hookpilot list`'s rows of market watches: those of config.yaml (static) and those `subscribe --market` added
 * (dynamic), named by their jobs' route (`market:<name>`), their conditions in the `--when` form.
 */
import { routeProblem } from '../core/routes/route-problem.js'
import type { SubscriptionsFile } from '../core/routes/subscriptions/index.js'
import { parseWatchEntry } from '../plugins/sources/market/watch-entry.js'
import { routeOf, watchRoute } from '../plugins/sources/market/watch-route.js'
import { formatWhen } from '../plugins/sources/market/when-syntax.js'
import type { WatchConfig } from '../plugins/sources/market/options.js'
import { marketSection } from './subscribe-market.js'
import type { CliContext, ServedTargets } from './subscriptions-common.js'

/** One watch as `list` shows it. */
export interface WatchRow {
  readonly name: string
  readonly source: 'static' | 'dynamic'
  readonly kind: 'market'
  /** The conditions, in the `--when` form, as one item. */
  readonly events: readonly string[]
  readonly deliver: string
  readonly market: string
  readonly description: string
  /** Why a running gateway does not watch it, when it does not. */
  readonly skipped: string | undefined
}

/** The watches of the config and of the store's `file`. */
export function watchRows(ctx: CliContext, file: SubscriptionsFile | undefined, served: ServedTargets | undefined): WatchRow[] {
  const section = marketSection(ctx)
  const off = section.enabled ? undefined : 'platforms.market is not enabled'
  const row = (name: string, watch: WatchConfig, source: 'static' | 'dynamic', skipped: string | undefined): WatchRow => {
    const market = typeof watch.market === 'string' ? watch.market : watch.market.join(',')
    return { name: routeOf(name), source, kind: 'market', events: [formatWhen(watch.when)], deliver: watch.deliver, market, description: `market ${market}`, skipped }
  }
  const rows = [...section.watches].map(([name, watch]) => row(name, watch, 'static', off))
  for (const [name, raw] of Object.entries(file?.watches ?? {})) {
    const entry = parseWatchEntry(name, raw)
    if (!entry.ok) {
      rows.push({ name: routeOf(name), source: 'dynamic', kind: 'market', events: [], deliver: '', market: '', description: '', skipped: entry.reason })
      continue
    }
    const problem = section.watches.has(name)
      ? 'a watch of config.yaml has the same name and wins'
      : (off ?? (served === undefined ? undefined : routeProblem(watchRoute(name, entry.value, 'dynamic'), served.targets, served.hints)))
    rows.push(row(name, entry.value, 'dynamic', problem))
  }
  return rows
}
