/**
 * Which routes' deliveries the App may mint installation tokens for: those verified with the App's own webhook
 * secret, and no other. The installation and repository a token is minted for are read from the payload, so a
 * route that also takes another sender's secret (a repository webhook's) would let that secret's holder sign a
 * payload naming any installation and repository, and have the App mint a token for it. A route counts when
 * every secret it verifies with is one of `platforms.github_app.webhook_secret`; without that key, when it has
 * exactly one secret (which is then taken to be the App's). Dynamic subscriptions never count: the App's webhook
 * URL names a route of config.yaml.
 */
import type { HookpilotConfig } from '../../core/config/schema.js'
import { INSECURE_NO_AUTH } from '../../core/route-types.js'
import { staticRoutes } from '../../core/routes/static-routes.js'

/** Whether a route's deliveries are all verified with the App's own webhook secret, by route name. */
export type AppRouteCheck = (route: string) => boolean

/**
 * The check for `config`'s routes against the App's webhook secret(s) (a list while it is rotated), or the
 * one-secret rule when none is configured.
 */
export function appRouteCheck(config: HookpilotConfig, webhookSecret: string | readonly string[] | undefined): AppRouteCheck {
  const appSecrets = (typeof webhookSecret === 'string' ? [webhookSecret] : webhookSecret ?? []).filter((s) => s.trim() !== '')
  const own = new Set<string>()
  for (const route of staticRoutes(config)) {
    // An empty secret verifies nothing, so it does not make a route another sender's.
    const secrets = route.secrets.filter((s) => s.trim() !== '')
    if (secrets.length === 0 || secrets.includes(INSECURE_NO_AUTH)) continue
    const app = appSecrets.length > 0 ? secrets.every((s) => appSecrets.includes(s)) : secrets.length === 1
    if (app) own.add(route.name)
  }
  return (route) => own.has(route)
}

/** Why a route's events are not answered as the App, for the delivery's error and the log. */
export function notAppRoute(route: string): string {
  return `route "${route}" is not verified with the App's own webhook secret only (platforms.github_app.webhook_secret): ` +
    'it also takes another secret, whose holder could name any installation, so no installation token is minted for its events; give the App\'s webhook a route of its own'
}
