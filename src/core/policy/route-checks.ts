/**
 * What a route with a `policy` section needs from the rest of the gateway, checked at startup (and by
 * `hookpilot check`): a target that reaches the pull request's code host, and a state backend that keeps notes
 * (a pause must hold on every instance and across restarts, so a backend without notes is refused, not ignored).
 */
import type { ConfigIssue } from '../errors.js'
import type { DeliveryTarget, Route } from '../types.js'

/** The problems of `routes`' policy sections with these targets and a backend that does (or does not) keep notes. */
export function policyRouteIssues(routes: readonly Route[], targets: ReadonlyMap<string, DeliveryTarget>, notesKept: boolean, driver: string): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  for (const route of routes) {
    if (route.policy === undefined) continue
    const path = `platforms.webhook.extra.routes.${route.name}.policy`
    const target = targets.get(route.deliver)
    if (target !== undefined && target.pullRequest === undefined) {
      issues.push({ path, message: `the route delivers to ${route.deliver}, which reaches no pull request: a policy needs a code host's target (github_comment as a GitHub App, or gitlab_mr)` })
    }
    if (!notesKept) {
      issues.push({ path, message: `the state backend "${driver}" keeps no notes, where pauses and notices are kept: use one that does (every built-in backend: memory, sqlite, redis, postgres), or remove the route's policy` })
    }
  }
  return issues
}
