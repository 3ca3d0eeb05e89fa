/**
 * Whether a route's target exists and accepts the route: the startup check of config.yaml's routes
 * (gateway/wiring.ts), the route registry's check of a source's route, a subscription's resolution and the CLI's
 * `subscribe` and `list` all ask it. It is routes' concern, so routes/ need not import the composition root.
 */
import { didYouMean } from '../config/keys.js'
import type { DeliveryTarget, Route } from '../types.js'

/** Targets by name and alias; a later target with a taken name replaces the earlier one. */
export function targetMap(targets: readonly DeliveryTarget[]): Map<string, DeliveryTarget> {
  const map = new Map<string, DeliveryTarget>()
  for (const target of targets) {
    for (const name of [target.name, ...(target.aliases ?? [])]) map.set(name, target)
  }
  return map
}

/** Why a route cannot deliver, or undefined when it can. Used for dynamic subscriptions too. */
export function routeProblem(route: Route, targets: ReadonlyMap<string, DeliveryTarget>, hints: ReadonlyMap<string, string> = new Map()): string | undefined {
  const target = targets.get(route.deliver)
  if (!target) {
    const hint = hints.get(route.deliver)
    if (hint !== undefined) return `route "${route.name}" delivers to ${route.deliver}, but ${hint}`
    const known = [...new Set([...targets.keys(), ...hints.keys()])].sort()
    return `route "${route.name}" delivers to "${route.deliver}", which no plugin provides${didYouMean(route.deliver, known)} (available: ${[...targets.keys()].sort().join(', ')})`
  }
  return target.checkRoute?.(route)
}
