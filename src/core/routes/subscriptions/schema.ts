/**
 * The subscriptions file: JSON, `{ "version": 1, "subscriptions": { "<name>": { ...route keys } } }`. An entry
 * has the keys of a route in config.yaml (so it resolves through the same code) plus when it was created.
 * The file is checked in two layers on purpose: a broken file (bad JSON, wrong shape) is rejected whole, while
 * one bad entry is only that entry's problem, so a hand edit gone wrong cannot take the other routes down.
 */
import * as v from 'valibot'
import { routeName, routeSchema } from '../../config/schema.js'

/** The file format version this code writes and reads. */
export const SUBSCRIPTIONS_VERSION = 1

/** One subscription: the keys of a config.yaml route, plus `created_at` (ISO 8601). */
export const subscriptionSchema = v.strictObject(
  {
    ...routeSchema.entries,
    created_at: v.optional(v.string('expected an ISO 8601 date')),
  },
  // Own message: the default one quotes the value received, which may be a secret.
  'expected an object of route keys (secret, events, prompt, ...)',
)

/** The file as a whole; entries stay unparsed here so that one bad entry cannot reject the others. */
const subscriptionsFileSchema = v.strictObject({
  version: v.optional(
    v.literal(SUBSCRIPTIONS_VERSION, `version ${SUBSCRIPTIONS_VERSION} is the only one this hookpilot understands`),
    SUBSCRIPTIONS_VERSION,
  ),
  subscriptions: v.record(v.string(), v.unknown(), 'expected an object from subscription name to subscription'),
  // Market watches added at run time (`hookpilot subscribe --market`): checked by the market source, which owns them.
  watches: v.optional(v.record(v.string(), v.unknown(), 'expected an object from watch name to watch')),
})

/** A subscription as written in the file (every key optional but what the route needs). */
export type SubscriptionInput = v.InferInput<typeof subscriptionSchema>
/** A subscription after validation, defaults filled in. */
export type Subscription = v.InferOutput<typeof subscriptionSchema>

/** The contents of a subscriptions file; entries are kept as written so rewriting never loses a key. */
export interface SubscriptionsFile {
  readonly version: typeof SUBSCRIPTIONS_VERSION
  readonly subscriptions: Readonly<Record<string, unknown>>
  /**
   * Market watches added at run time, by name, as written (the keys of a watch under `platforms.market.extra.watches`);
   * the market source checks each with the same schema as the config's and sets a bad one aside with its reason.
   */
  readonly watches?: Readonly<Record<string, unknown>> | undefined
}

/** The result of checking one entry: the subscription, or why it cannot be used. */
export type EntryResult = { readonly ok: true; readonly value: Subscription } | { readonly ok: false; readonly reason: string }

/** An empty file's contents. */
export function emptySubscriptions(): SubscriptionsFile {
  return { version: SUBSCRIPTIONS_VERSION, subscriptions: {} }
}

/**
 * Parses the text of a subscriptions file; `reason` says what is wrong with a broken one.
 */
export function parseSubscriptionsText(
  text: string,
): { readonly ok: true; readonly file: SubscriptionsFile } | { readonly ok: false; readonly reason: string } {
  if (text.trim() === '') return { ok: false, reason: 'the file is empty (an empty set is {"version": 1, "subscriptions": {}})' }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    // Never the parser's message: it quotes the text, which may be anything a link pointed at.
    const position = /at position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1]
    return { ok: false, reason: `not valid JSON${position === undefined ? '' : ` (at character ${position})`}` }
  }
  // valibot takes an array for an object with missing keys: say what the file should look like instead.
  if (!isPlainObject(raw)) return { ok: false, reason: `expected an object {"version": 1, "subscriptions": {...}}` }
  const result = v.safeParse(subscriptionsFileSchema, raw)
  if (!result.success) return { ok: false, reason: describeIssues(result.issues) }
  // The entries as JSON.parse made them (own keys): valibot's record drops __proto__, constructor and
  // prototype without a word, and such an entry must be skipped with its reason instead.
  const watches = raw['watches'] as Record<string, unknown> | undefined
  return { ok: true, file: { version: SUBSCRIPTIONS_VERSION, subscriptions: raw['subscriptions'] as Record<string, unknown>, ...(watches === undefined ? {} : { watches }) } }
}

/** Checks one entry and its name. */
export function parseEntry(name: string, raw: unknown): EntryResult {
  const named = v.safeParse(routeName, name)
  if (!named.success) return { ok: false, reason: describeIssues(named.issues) }
  if (!isPlainObject(raw)) return { ok: false, reason: 'expected an object of route keys (secret, events, prompt, ...)' }
  const result = v.safeParse(subscriptionSchema, raw)
  return result.success ? { ok: true, value: result.output } : { ok: false, reason: describeIssues(result.issues) }
}

/** Valibot issues as one line: `path: message; ...`, with unknown keys called that (never the value received). */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .map((issue) => {
      const path = v.getDotPath(issue)
      const message = issue.expected === 'never' ? 'unknown key' : issue.message
      return path ? `${path}: ${message}` : message
    })
    .join('; ')
}

/** An object that is not an array nor null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
