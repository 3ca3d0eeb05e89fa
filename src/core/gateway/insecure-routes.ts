/**
 * `listen({ host })` (`--host`) may bind another host than the config's, which the config's check of
 * INSECURE_NO_AUTH was made against: a listen on a host other machines can reach refuses every route that
 * turns signature checks off, naming each.
 */
import { ConfigError } from '../errors.js'
import { INSECURE_NO_AUTH } from '../route-types.js'
import { insecureRefusal, isLoopback } from '../routes/routes.js'
import type { Route } from '../types.js'

/** Throws a ConfigError naming every route with INSECURE_NO_AUTH when `host` is not a loopback one. */
export function refuseInsecureRoutes(routes: readonly Route[], host: string): void {
  if (isLoopback(host)) return
  const open = routes.filter((r) => r.secrets.includes(INSECURE_NO_AUTH))
  if (open.length === 0) return
  throw new ConfigError(open.map((r) => ({ path: `${routePath(r)}.secret`, message: insecureRefusal(host) })))
}

function routePath(route: Route): string {
  return route.source === 'static' ? `platforms.webhook.extra.routes.${route.name}` : `subscriptions.${route.name}`
}
