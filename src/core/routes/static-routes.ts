/**
 * The routes of config.yaml (`platforms.webhook.extra.routes`), resolved, and the defaults every route inherits
 * from `platforms.webhook.extra`, which a subscription's route inherits too. They are routes' concern, read from a
 * parsed configuration: config/ only says what a valid config.yaml is.
 */
import type { HookpilotConfig } from '../config/schema.js'
import type { ConfigIssue } from '../errors.js'
import type { Route } from '../types.js'
import { resolveRoute, type RouteDefaults } from './routes.js'

/** Where config.yaml holds its routes, the prefix of every problem about one. */
export const STATIC_ROUTES_PATH = 'platforms.webhook.extra.routes'

/** The defaults every route inherits from `platforms.webhook.extra`. */
export function routeDefaults(config: HookpilotConfig): RouteDefaults {
  const extra = config.platforms.webhook.extra
  return { host: extra.host, secret: extra.secret, rateLimit: extra.rate_limit }
}

/** The routes of config.yaml, resolved; problems go to `issues`. */
export function staticRoutes(config: HookpilotConfig, issues: ConfigIssue[] = []): Route[] {
  const defaults = routeDefaults(config)
  const routes: Route[] = []
  for (const [name, route] of Object.entries(config.platforms.webhook.extra.routes)) {
    const resolved = resolveRoute(name, route, defaults, 'static', `${STATIC_ROUTES_PATH}.${name}`, issues)
    if (resolved) routes.push(resolved)
  }
  return routes
}
