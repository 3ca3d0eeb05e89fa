/** The pull request a job or an event is about, through the code host its route's target posts to. */
import type { PullRequestHost } from '../code-host-types.js'
import { renderExtra } from '../routes/template.js'
import type { DeliveryTarget, JsonObject, Route } from '../types.js'

/**
 * The route's target's handle on the event's pull request (its `deliver_extra` rendered from `payload`), or
 * undefined when the target offers none (a chat, the log) or the event names no pull request it can reach.
 */
export function pullRequestOf(targets: ReadonlyMap<string, DeliveryTarget>, route: Route, payload: JsonObject, signal: AbortSignal): PullRequestHost | undefined {
  const target = targets.get(route.deliver)
  if (target?.pullRequest === undefined) return undefined
  return target.pullRequest({ route: route.name, extra: renderExtra(route, payload), payload, signal })
}
