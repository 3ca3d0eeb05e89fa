/**
 * `platforms.market`: the watches of the market source, each a market, the conditions that alert, and the route
 * its alerts take (prompt, target, rate limit) like a webhook route's.
 */
import * as v from 'valibot'
import { boolean, integer, nonBlank, text } from '../../../core/config/schema-kit.js'

/** A price as the market quotes it: a probability strictly between 0 and 1. */
const price = v.pipe(v.number('expected a number'), v.gtValue(0, 'a price above 0'), v.ltValue(1, 'a price below 1'))

/** One condition; exactly one of its four kinds. */
const conditionSchema = v.pipe(
  v.strictObject({
    midpoint_moves: v.optional(price),
    within_seconds: v.optional(integer(1, 7 * 86_400)),
    price_crosses: v.optional(v.pipe(v.array(price, 'expected a list of prices'), v.minLength(1, 'at least one level'))),
    hysteresis: v.optional(v.pipe(v.number('expected a number'), v.minValue(0, 'at least 0'), v.ltValue(0.5, 'below 0.5'))),
    trade_size_over: v.optional(v.pipe(v.number('expected a number'), v.gtValue(0, 'above 0'))),
    resolved: v.optional(v.literal(true, 'only `resolved: true`')),
  }),
  v.check(
    (c) => [c.midpoint_moves, c.price_crosses, c.trade_size_over, c.resolved].filter((x) => x !== undefined).length === 1,
    'a condition is exactly one of midpoint_moves (with within_seconds), price_crosses, trade_size_over or resolved',
  ),
  v.check((c) => (c.midpoint_moves === undefined) === (c.within_seconds === undefined), 'midpoint_moves and within_seconds go together'),
)

/** A watch name: it becomes part of a route name (`market:<name>`). */
export const watchName = v.pipe(v.string(), v.regex(/^[a-z0-9_-]{1,64}$/, 'a watch name is 1 to 64 lower-case letters, digits, "-" or "_"'))

/** One watch: the keys of `platforms.market.extra.watches.<name>`, and of a watch added by `hookpilot subscribe --market`. */
export const watchSchema = v.strictObject({
  /** A catalog slug, or the token ids to watch (the first one's price is the one the price conditions read). */
  market: v.union([nonBlank('a market slug or token ids'), v.pipe(v.array(v.pipe(text, v.regex(/^\d+$/, 'a token id is a decimal string'))), v.minLength(1))], 'a market slug, or a list of token ids'),
  when: v.pipe(v.array(conditionSchema, 'expected a list of conditions'), v.minLength(1, 'at least one condition')),
  prompt: v.optional(text),
  deliver: v.optional(nonBlank('a delivery target'), 'log'),
  deliver_extra: v.optional(v.record(v.string(), text), {}),
  /** Alerts per rolling minute (the route's rate limit). */
  rate_limit: v.optional(integer(1), 30),
})

/** The market source's options. */
export const marketOptions = v.object({
  enabled: v.optional(boolean, false),
  extra: v.optional(
    v.strictObject({
      /** The services' addresses (default: the real ones; the SDK's mock prints its own). */
      gamma_url: v.optional(text),
      clob_url: v.optional(text),
      data_url: v.optional(text),
      ws_url: v.optional(text),
      watches: v.optional(v.record(watchName, watchSchema), {}),
    }),
    {},
  ),
})

/** The validated options. */
export type MarketOptions = v.InferOutput<typeof marketOptions>
/** One validated watch. */
export type WatchConfig = v.InferOutput<typeof watchSchema>
/** One validated condition. */
export type ConditionConfig = v.InferOutput<typeof conditionSchema>

/** Levels closer than this to a crossing's level are the band a wobble stays in (`hysteresis`). */
export const DEFAULT_HYSTERESIS = 0.01
