/**
 * Prompt rendering: `{field}` and `{a.b.0.c}` are replaced from the payload in one pass, so text that a payload
 * brings in (attacker-controlled) is never expanded again. There is no other syntax.
 */
import type { JsonObject, JsonValue } from '../types.js'

const FIELD = /\{([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\}/g
const RAW = '__raw__'
/** Objects and arrays placed in a template are cut to this many characters. */
export const MAX_FIELD_JSON = 2000
/** `{__raw__}` is cut to this many characters. */
export const MAX_RAW_JSON = 4000

/**
 * Renders a template from a payload. Missing fields stay as written (`{pull_request.nope}`), so a typo shows in
 * the prompt instead of vanishing.
 *
 * @example
 * ```ts
 * renderTemplate('PR #{number}: {pull_request.title}', payload) // 'PR #42: Fix the parser'
 * ```
 */
export function renderTemplate(template: string, payload: JsonObject): string {
  return template.replace(FIELD, (whole, path: string) => fieldText(payload, path) ?? whole)
}

/**
 * The values a template's placeholders stand for, by path (`{ "pull_request.title": "..." }`), rendered as
 * {@link renderTemplate} would put them in; missing fields are left out. For runners that keep the operator's
 * template apart from the untrusted values.
 */
export function templateFields(template: string, payload: JsonObject): Record<string, string> {
  const fields = Object.create(null) as Record<string, string> // a placeholder may be named {__proto__}
  for (const [, path] of template.matchAll(FIELD)) {
    const text = path === undefined ? undefined : fieldText(payload, path)
    if (path !== undefined && text !== undefined) fields[path] = text
  }
  return fields
}

function fieldText(payload: JsonObject, path: string): string | undefined {
  if (path === RAW) return JSON.stringify(payload, null, 2).slice(0, MAX_RAW_JSON)
  const value = lookup(payload, path)
  return value === undefined ? undefined : stringify(value)
}

/** The prompt of a route without a template: the event and the whole payload as indented JSON. */
export function defaultPrompt(eventType: string, route: string, payload: JsonObject): string {
  return `Webhook event '${eventType}' on route '${route}':\n\n\`\`\`json\n${JSON.stringify(payload, null, 2)}\n\`\`\``
}

/** Follows a dotted path through objects and arrays (a digit segment indexes an array); own keys only. */
export function lookup(payload: JsonValue, path: string): JsonValue | undefined {
  let current: JsonValue | undefined = payload
  for (const segment of path.split('.')) {
    if (Array.isArray(current)) {
      current = /^\d+$/.test(segment) ? current[Number(segment)] : undefined
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, segment)) {
      current = current[segment]
    } else {
      return undefined
    }
  }
  return current
}

function stringify(value: JsonValue): string {
  if (typeof value === 'string') return value
  if (typeof value === 'object' && value !== null) return JSON.stringify(value, null, 2).slice(0, MAX_FIELD_JSON)
  return JSON.stringify(value)
}
