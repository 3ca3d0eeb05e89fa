/**
 * The routes of sources that are not HTTP (a market watch each): those a plugin declares at setup, and those it
 * adds and removes while the gateway runs (a watch added by `hookpilot subscribe --market`). The dispatcher and
 * the intake read the same book, so a route added here runs and delivers at once, and a removed one takes no
 * new event.
 */
import type { DeliveryTarget, Route } from '../types.js'
import type { RouteTable } from './route-table.js'
import { routeProblem } from '../gateway/wiring.js'

/** What a source that is not HTTP may change of its routes at run time (given to `GatewayPlugin.connect`). */
export interface SourceRoutes {
  /**
   * Adds (or replaces) a route; resolves why it cannot deliver instead (a target no plugin provides, one that
   * refuses the route), and then adds nothing.
   */
  add(route: Route): string | undefined
  /** Removes a route added with `add`; a job of it still queued fails with a reason that says so. */
  remove(name: string): void
}

/** The book: a route table for the dispatcher and the intake, and the handle sources change it through. */
export interface SourceRouteBook extends RouteTable, SourceRoutes {}

/** Creates the book over the plugins' declared routes, checking added ones against `targets`. */
export function createSourceRoutes(
  declared: readonly Route[],
  targets: ReadonlyMap<string, DeliveryTarget>,
  hints?: ReadonlyMap<string, string>,
): SourceRouteBook {
  const routes = new Map(declared.map((r) => [r.name, r]))
  return {
    get: (name) => routes.get(name),
    list: () => [...routes.values()],
    add(route) {
      const problem = routeProblem(route, targets, hints)
      if (problem === undefined) routes.set(route.name, route)
      return problem
    },
    remove(name) {
      routes.delete(name)
    },
  }
}
