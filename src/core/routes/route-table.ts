/**
 * The routes a gateway answers: the static ones of config.yaml, then dynamic subscriptions, which can be
 * swapped at run time without a restart. Static routes win a name clash.
 */
import type { Route } from '../types.js'

/** Looks routes up by name. */
export interface RouteTable {
  get(name: string): Route | undefined
  list(): readonly Route[]
}

/** A route table whose dynamic part can be replaced while the gateway runs. */
export interface MutableRouteTable extends RouteTable {
  /** Replaces every dynamic route at once (requests see the old set or the new one, never a mix). */
  setDynamic(routes: readonly Route[]): void
}

/**
 * Creates the table from the static routes. `onChange` hears every set of routes the table holds, the first
 * at once (the gateway's secret set learns the routes' secrets from it).
 */
export function createRouteTable(staticRoutes: readonly Route[], onChange?: (routes: readonly Route[]) => void): MutableRouteTable {
  const fixed = new Map(staticRoutes.map((r) => [r.name, r]))
  let dynamic = new Map<string, Route>()
  const table: MutableRouteTable = {
    get: (name) => fixed.get(name) ?? dynamic.get(name),
    list: () => [...fixed.values(), ...[...dynamic.values()].filter((r) => !fixed.has(r.name))],
    setDynamic(routes) {
      dynamic = new Map(routes.map((r) => [r.name, r]))
      onChange?.(table.list())
    },
  }
  onChange?.(table.list())
  return table
}
