/**
 * Route names JavaScript objects reserve. `__proto__`, `constructor` and `prototype` pass the route-name rule,
 * but valibot's records drop such keys (as a guard against prototype pollution) and a plain object looks them
 * up on its prototype: a route of that name vanished without a word. They are refused with a message instead,
 * in config.yaml, by `hookpilot subscribe`, and in a hand-edited subscriptions file.
 */
import type { ConfigIssue } from '../errors.js'

const RESERVED = new Set(['__proto__', 'constructor', 'prototype'])

/** Why `name` cannot name a route, or undefined when it can. */
export function reservedNameProblem(name: string): string | undefined {
  return RESERVED.has(name) ? `"${name}" cannot name a route: JavaScript objects reserve it; pick another name` : undefined
}

/** Issues for every reserved key of `routes` (a raw, unvalidated object), at `path.<name>`. */
export function reservedRouteIssues(routes: unknown, path: string): ConfigIssue[] {
  if (typeof routes !== 'object' || routes === null || Array.isArray(routes)) return []
  return Object.keys(routes).flatMap((name) => {
    const problem = reservedNameProblem(name)
    return problem === undefined ? [] : [{ path: `${path}.${name}`, message: problem }]
  })
}
