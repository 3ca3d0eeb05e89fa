/**
 * Prompt rendering: `{field}` and `{a.b.0.c}` are replaced from the payload in one pass, so text that a payload
 * brings in (attacker-controlled) is never expanded again. There is no other syntax.
 */
import type { JsonObject, JsonValue, Route } from '../types.js'

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
export function renderTemplate(template: string, payload: JsonObject, variables?: TemplateVariables): string {
  return template.replace(FIELD, (whole, path: string) => variableText(variables, path) ?? fieldText(payload, path) ?? whole)
}

/**
 * Values a template may name besides the payload's fields, by their whole dotted name (`review.head`): what the
 * gateway knows about a job that the event does not carry (a delivery target's `promptVariables`).
 * A variable wins over a payload field of the same name, so a payload cannot pass for the gateway's own values.
 */
export type TemplateVariables = Readonly<Record<string, string>>

/**
 * The values a template's placeholders stand for, by path (`{ "pull_request.title": "..." }`), rendered as
 * {@link renderTemplate} would put them in; missing fields are left out. For runners that keep the operator's
 * template apart from the untrusted values.
 */
export function templateFields(template: string, payload: JsonObject, variables?: TemplateVariables): Record<string, string> {
  const fields = Object.create(null) as Record<string, string> // a placeholder may be named {__proto__}
  for (const [, path] of template.matchAll(FIELD)) {
    const text = path === undefined ? undefined : variableText(variables, path) ?? fieldText(payload, path)
    if (path !== undefined && text !== undefined) fields[path] = text
  }
  return fields
}

/** A `{` that starts a field name (`{number`), with no `}` before the next `{` or the end. */
const UNCLOSED = /\{[A-Za-z0-9_][A-Za-z0-9_.]*(?=[^}]*(?:\{|$))/

/**
 * Why a template holds a placeholder that is never closed (`PR {number in {repository.full_name}`), or undefined.
 * Such text is left as written when rendered, so the typo would reach the agent (or the delivery) unnoticed.
 * Braces that do not start a field name (`{ "a": 1 }`) and closed braces (`{return 1}`) are text, not mistakes.
 */
export function unclosedPlaceholderProblem(template: string): string | undefined {
  const match = UNCLOSED.exec(template)
  if (match === null) return undefined
  const shown = match[0].length > 40 ? `${match[0].slice(0, 40)}…` : match[0]
  return `the placeholder "${shown}" at character ${match.index + 1} is never closed: write it as "${shown}}" (a field of the payload in braces)`
}

function variableText(variables: TemplateVariables | undefined, path: string): string | undefined {
  return variables !== undefined && Object.hasOwn(variables, path) ? variables[path] : undefined
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

/**
 * The route's `deliver_extra`, each value rendered from the payload: what its target is given (before the run,
 * at delivery, when a job ends, and for its pull request). Throws for a template it cannot render.
 */
export function renderExtra(route: Pick<Route, 'deliverExtra'>, payload: JsonObject): Record<string, string> {
  return Object.fromEntries(Object.entries(route.deliverExtra).map(([key, template]) => [key, renderTemplate(template, payload)]))
}
