/**
 * A route's concurrency group for one event: the route's `concurrency.key` rendered from the payload. Events of
 * one key (one pull request) share a group, where at most one job runs and the newest supersedes the rest.
 */
import { createHash } from 'node:crypto'
import type { JobGroup } from '../jobs/lifecycle/job-record.js'
import type { JsonObject, RouteConcurrency } from '../types.js'
import { renderTemplate, templateFields } from './template.js'

/** Keys longer than this (a sender controls the values) are stored as their hash. */
const MAX_KEY = 200

/**
 * The group of an event of route `route`, or undefined when the route has none or a field of its key is missing
 * from this payload (a `ping`, a comment without a pull request): such an event runs on its own, since a key
 * left with `{pull_request.number}` in it would put every one of them in one group.
 */
export function groupOf(route: string, concurrency: RouteConcurrency | undefined, payload: JsonObject): JobGroup | undefined {
  const key = concurrency && renderedKey(concurrency.key, payload)
  if (concurrency === undefined || key === undefined) return undefined
  return { key: `${route}\u0000${key}`, debounceMs: concurrency.debounceMs, maxWaitMs: concurrency.maxWaitMs }
}

/**
 * `template` rendered from `payload` as a key (a group's, a fairness key), hashed past {@link MAX_KEY}
 * characters; undefined when a field it names is missing from this payload.
 */
export function renderedKey(template: string, payload: JsonObject): string | undefined {
  const wanted = new Set([...template.matchAll(/\{([A-Za-z0-9_.]+)\}/g)].map((m) => m[1]))
  const found = templateFields(template, payload)
  for (const path of wanted) if (path === undefined || !(path in found)) return undefined
  const rendered = renderTemplate(template, payload)
  return rendered.length <= MAX_KEY ? rendered : `sha256:${createHash('sha256').update(rendered).digest('hex')}`
}
