/**
 * The handle a source that is not HTTP (a market stream) changes its routes through: those it declared at setup
 * are in the gateway's route registry from the start, and it adds and removes others while the gateway runs (a
 * watch added by `hookpilot subscribe --market`).
 */
import type { Route } from '../types.js'
import type { RouteTable } from './route-table.js'

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

/** The sources' routes: the table the intake admits to, and the handle sources change it through. */
export interface SourceRouteBook extends RouteTable, SourceRoutes {}
