/** `price_history`: one outcome token's prices over an interval or a window, thinned to a bounded number of points. */
import * as z from 'zod'
import type { HistoryParams, Interval, PricePoint } from '../../clob/model.js'
import { tokenOf, tokenTarget } from '../args.js'
import { defineTool, ToolArgumentError } from '../tool.js'

const INTERVALS = ['1h', '6h', '1d', '1w', '1m', 'max', 'all'] as const satisfies readonly Interval[]
/** The longest window the price-history service answers (longer ones are a 400). */
const MAX_WINDOW_DAYS = 15
/** The most points returned. */
const MAX_POINTS = 500
const seconds = z.int().min(1_000_000_000).max(99_999_999_999)

/** The `price_history` tool. */
export const priceHistory = defineTool({
  name: 'price_history',
  title: 'Price history',
  description:
    "An outcome token's price history (price as a probability from 0 to 1, time in unix seconds): over an interval " +
    `ending now, or a window of at most ${MAX_WINDOW_DAYS} days (resolved markets have history only in windows). ` +
    'Long series are thinned evenly to maxPoints, keeping the latest point. Give token, or slug (and outcome).',
  input: z.strictObject({
    ...tokenTarget,
    interval: z.enum(INTERVALS).optional().describe('1h, 6h, 1d, 1w, 1m (a month), max or all (default 1w); not with start/end'),
    start: seconds.optional().describe('window start, unix seconds (with end)'),
    end: seconds.optional().describe('window end, unix seconds (with start)'),
    fidelity: z.int().min(1).max(10_080).optional().describe('bucket size in minutes (at least 5 for 1w, 10 for 1m)'),
    maxPoints: z.int().min(2).max(MAX_POINTS).optional().describe(`the most points returned (default 200, at most ${MAX_POINTS})`),
  }),
  async run(args, { pm, signal }) {
    const params = historyParams(args)
    const points = await (await tokenOf(pm, args, signal)).history(params, { signal })
    const kept = thin(points, args.maxPoints ?? 200)
    const prices = points.map((p) => p.p)
    return {
      ...params,
      count: points.length,
      returned: kept.length,
      first: points[0] ?? null,
      last: points[points.length - 1] ?? null,
      low: prices.length > 0 ? Math.min(...prices) : null,
      high: prices.length > 0 ? Math.max(...prices) : null,
      points: kept,
    }
  },
})

function historyParams(args: { interval?: Interval | undefined; start?: number | undefined; end?: number | undefined; fidelity?: number | undefined }): HistoryParams {
  const { interval, start, end, fidelity } = args
  if (start === undefined && end === undefined) return { interval: interval ?? '1w', fidelity }
  if (interval !== undefined) throw new ToolArgumentError('give either interval or a start/end window, not both')
  if (start === undefined || end === undefined) throw new ToolArgumentError('a window needs both start and end (unix seconds)')
  if (start >= end) throw new ToolArgumentError(`start (${start}) must be before end (${end})`)
  if (end - start > MAX_WINDOW_DAYS * 86_400) {
    throw new ToolArgumentError(`the window from start to end is over ${MAX_WINDOW_DAYS} days, the most the service answers`)
  }
  return { start, end, fidelity }
}

/** At most `max` points, evenly spaced, the latest always among them. */
function thin(points: readonly PricePoint[], max: number): PricePoint[] {
  if (points.length <= max) return [...points]
  const step = Math.ceil(points.length / max)
  return points.filter((_, i) => (points.length - 1 - i) % step === 0)
}
