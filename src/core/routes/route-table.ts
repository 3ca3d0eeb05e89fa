/**
 * How the parts of a gateway look routes up: a table to read, and the webhook table whose subscribed part can
 * be swapped at run time without a restart. One registry (`route-registry.ts`) holds every route and hands
 * each part the table it may read.
 */
import type { Route } from '../types.js'

/** Looks routes up by name. */
export interface RouteTable {
  get(name: string): Route | undefined
  list(): readonly Route[]
}

/** The routes the gateway answers over HTTP: static ones, then subscribed ones, which can be replaced while it runs. */
export interface MutableRouteTable extends RouteTable {
  /** Replaces every dynamic route at once (requests see the old set or the new one, never a mix). */
  setDynamic(routes: readonly Route[]): void
}
