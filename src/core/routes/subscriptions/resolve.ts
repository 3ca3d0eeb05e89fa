/**
 * Turns the entries of a subscriptions file into routes, through the same checks as config.yaml routes
 * (resolveRoute, routeProblem). Unlike a static route, a bad entry never stops anything: it is set aside with
 * the reason, named, and the others are used.
 */
import { routeDefaults } from '../static-routes.js'
import type { HookpilotConfig } from '../../config/schema.js'
import type { ConfigIssue } from '../../errors.js'
import { resolveRoute } from '../routes.js'
import type { DeliveryTarget, Route } from '../../types.js'
import { routeProblem } from '../route-problem.js'
import { parseEntry, type SubscriptionsFile } from './schema.js'

/** A subscription that is not served, and why (the reason never holds a secret). */
export interface SkippedSubscription {
  readonly name: string
  readonly reason: string
}

/** Usable routes and the entries set aside. */
export interface ResolvedSubscriptions {
  readonly routes: readonly Route[]
  readonly skipped: readonly SkippedSubscription[]
}

/** What entries are checked against. */
export interface ResolveContext {
  readonly config: HookpilotConfig
  /** Delivery targets by name and alias; without them the target is not checked. */
  readonly targets?: ReadonlyMap<string, DeliveryTarget> | undefined
  /** Target names a plugin could provide but did not (a disabled platform), with how to enable them. */
  readonly hints?: ReadonlyMap<string, string> | undefined
  /** Names of the static routes, which win a clash. */
  readonly staticNames: ReadonlySet<string>
}

/** Resolves every entry of `file`. */
export function resolveSubscriptions(file: SubscriptionsFile, context: ResolveContext): ResolvedSubscriptions {
  const routes: Route[] = []
  const skipped: SkippedSubscription[] = []
  for (const [name, raw] of Object.entries(file.subscriptions)) {
    const result = resolveSubscription(name, raw, context)
    if ('reason' in result) skipped.push(result)
    else routes.push(result)
  }
  return { routes, skipped }
}

/** Resolves one entry: its route, or why it is set aside. */
export function resolveSubscription(name: string, raw: unknown, context: ResolveContext): Route | SkippedSubscription {
  const { config, targets, hints, staticNames } = context
  if (staticNames.has(name)) {
    return { name, reason: `a static route in config.yaml has the same name and wins; rename or remove the subscription` }
  }
  const entry = parseEntry(name, raw)
  if (!entry.ok) return { name, reason: entry.reason }
  const issues: ConfigIssue[] = []
  const route = resolveRoute(name, entry.value, routeDefaults(config), 'dynamic', `subscriptions.${name}`, issues)
  if (!route) return { name, reason: issues.map((i) => `${i.path}: ${i.message}`).join('; ') }
  const problem = targets === undefined ? undefined : routeProblem(route, targets, hints)
  return problem === undefined ? route : { name, reason: problem }
}
