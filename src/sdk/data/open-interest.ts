/** Open interest of markets, from the trades service's `/oi`. */
import * as v from 'valibot'
import type { CallOptions, ClientContext } from '../context.js'
import { toNumber } from '../wire/fields.js'
import { DataOpenInterestSchema } from '../wire/data.js'

/** Open interest of one market, in USDC. */
export interface OpenInterest {
  /** Condition id. */
  readonly market: string
  /** `null` when the service has no figure (it sent `null` or nothing): unknown, which is not the same as 0. */
  readonly value: number | null
}

const Schema = v.pipe(
  DataOpenInterestSchema,
  v.transform((rows): OpenInterest[] => rows.map((r) => ({ market: r.market, value: toNumber(r.value) }))),
)

/** Open interest of one or several markets (condition ids); markets the service does not know are absent. */
export function openInterest(
  ctx: ClientContext,
  conditionIds: string | readonly string[],
  options: CallOptions = {},
): Promise<OpenInterest[]> {
  const market = typeof conditionIds === 'string' ? conditionIds : conditionIds.join(',')
  return ctx.request({ service: 'data', path: '/oi', query: { market }, schema: Schema, signal: options.signal })
}
