/**
 * Every route a gateway knows, held in one place: the static routes of config.yaml, the subscribed ones (the
 * subscription store's, replaced at run time), and the routes of sources that are not HTTP (a market watch
 * each, declared at setup or added while the gateway runs). Each part reads the view it may use:
 *
 * - the request flow answers static and subscribed routes (`webhooks`): a source's route is never reachable
 *   over HTTP, so no sender can post into a market watch;
 * - a source's intake admits to the sources' routes only (`sources`);
 * - the dispatcher resolves any route a stored job names (the registry itself), so a route added anywhere runs
 *   and delivers at once, and a removed one fails its queued jobs with a reason that says so.
 *
 * A name is looked up static first, then subscribed, then a source's: a subscription never shadows a static
 * route (`hookpilot subscribe` refuses the clash too).
 */
import { routeProblem } from './route-problem.js'
import type { DeliveryTarget, Route } from '../types.js'
import type { MutableRouteTable, RouteTable } from './route-table.js'
import type { SourceRouteBook } from './source-routes.js'

/** What a registry starts with. */
export interface RouteRegistryOptions {
  /** The routes of config.yaml. */
  readonly configured: readonly Route[]
  /** The routes sources that are not HTTP declared at setup (`GatewayPlugin.routes`). */
  readonly sources?: readonly Route[] | undefined
  /** What a route a source adds at run time must deliver to (checked when it is added). */
  readonly targets?: ReadonlyMap<string, DeliveryTarget> | undefined
  /** Target names a plugin could provide but did not (a disabled platform), with how to enable them. */
  readonly hints?: ReadonlyMap<string, string> | undefined
  /**
   * Hears every set of webhook routes (static and subscribed), the first at once: the gateway's secret set
   * learns the routes' secrets from it.
   */
  readonly onChange?: ((routes: readonly Route[]) => void) | undefined
}

/** Every route of a gateway; its own `get` and `list` see all of them (what the dispatcher reads). */
export interface RouteRegistry extends RouteTable {
  /** What the request flow answers: static routes, then subscribed ones. */
  readonly webhooks: MutableRouteTable
  /** The routes of sources that are not HTTP: what the intake admits to and sources change. */
  readonly sources: SourceRouteBook
}

/**
 * Creates the registry.
 *
 * @example
 * ```ts
 * const routes = createRouteRegistry({ configured: staticRoutes(config), sources: declared, targets })
 * routes.webhooks.setDynamic(subscribed)
 * routes.get('market:btc-100k') // a source's route, as the dispatcher finds it
 * ```
 */
export function createRouteRegistry(options: RouteRegistryOptions): RouteRegistry {
  const { targets = new Map<string, DeliveryTarget>(), hints, onChange } = options
  const configured = new Map(options.configured.map((r) => [r.name, r]))
  // Replaced whole, never edited: a request sees the old set or the new one.
  let subscribed = new Map<string, Route>()
  const sourced = new Map((options.sources ?? []).map((r) => [r.name, r]))

  const webhooks: MutableRouteTable = {
    get: (name) => configured.get(name) ?? subscribed.get(name),
    list: () => [...configured.values(), ...[...subscribed.values()].filter((r) => !configured.has(r.name))],
    setDynamic(routes) {
      subscribed = new Map(routes.map((r) => [r.name, r]))
      onChange?.(webhooks.list())
    },
  }
  const sources: SourceRouteBook = {
    get: (name) => sourced.get(name),
    list: () => [...sourced.values()],
    add(route) {
      const problem = routeProblem(route, targets, hints)
      if (problem === undefined) sourced.set(route.name, route)
      return problem
    },
    remove(name) {
      sourced.delete(name)
    },
  }
  onChange?.(webhooks.list())
  return {
    get: (name) => webhooks.get(name) ?? sourced.get(name),
    list: () => [...webhooks.list(), ...sourced.values()],
    webhooks,
    sources,
  }
}
