/**
 * The order-book service's batch reads (`POST /books`, `/prices`, `/midpoints`, `/spreads`). The service takes at
 * most 500 items a request, so long lists are cut into chunks sent in parallel under the client's concurrency bound.
 */
import * as v from 'valibot'
import type { CallOptions, ClientContext } from '../context.js'
import { num, toNumber } from '../wire/fields.js'
import { ClobBatchPricesSchema, ClobBatchValuesSchema, ClobBookSchema } from '../wire/clob.js'
import { toBook, type Book } from './model.js'

/** Most items the service accepts in one batch request. */
export const BATCH_LIMIT = 500

/** Best prices of one token on both sides; `null` when the service had none. */
export interface TokenPrices {
  readonly buy: number | null
  readonly sell: number | null
}

const BooksSchema = v.pipe(v.array(ClobBookSchema), v.transform((books) => books.map(toBook)))

/** Runs `run` on chunks of `size` items and joins the results in order (the transport bounds how many run at once). */
async function chunked<T, R>(
  items: readonly T[],
  run: (chunk: readonly T[]) => Promise<readonly R[]>,
  size = BATCH_LIMIT,
): Promise<R[]> {
  const chunks: (readonly T[])[] = []
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size))
  const results = await Promise.all(chunks.map(run))
  return results.flat()
}

function post<T>(ctx: ClientContext, path: string, body: unknown, schema: v.GenericSchema<unknown, T>, o: CallOptions) {
  return ctx.request({ service: 'clob', method: 'POST', path, body, schema, signal: o.signal })
}

/** Books of many tokens, in the service's order (tokens without a book are left out by the service). */
export function books(ctx: ClientContext, tokenIds: readonly string[], o: CallOptions = {}): Promise<Book[]> {
  return chunked(unique(tokenIds), (chunk) =>
    post(ctx, '/books', chunk.map((token_id) => ({ token_id })), BooksSchema, o),
  )
}

/** Best buy and sell prices of many tokens: every token asked for is a key, `null` when the service had none. */
export async function prices(
  ctx: ClientContext,
  tokenIds: readonly string[],
  o: CallOptions = {},
): Promise<Map<string, TokenPrices | null>> {
  const run = async (chunk: readonly string[]) => {
    const body = chunk.flatMap((token_id) => [{ token_id, side: 'BUY' }, { token_id, side: 'SELL' }])
    const answer = await post(ctx, '/prices', body, ClobBatchPricesSchema, o)
    return Object.entries(answer).map(([id, p]) => [id, { buy: toNumber(p.BUY), sell: toNumber(p.SELL) }] as const)
  }
  // Two items per token (one per side): half as many tokens per request keeps it within the limit.
  const ids = unique(tokenIds)
  return complete(ids, await chunked(ids, run, BATCH_LIMIT / 2))
}

/** Midpoints of many tokens: every token asked for is a key, `null` when the service had none. */
export function midpoints(ctx: ClientContext, tokenIds: readonly string[], o: CallOptions = {}) {
  return values(ctx, '/midpoints', tokenIds, o)
}

/** Spreads of many tokens: every token asked for is a key, `null` when the service had none. */
export function spreads(ctx: ClientContext, tokenIds: readonly string[], o: CallOptions = {}) {
  return values(ctx, '/spreads', tokenIds, o)
}

async function values(
  ctx: ClientContext,
  path: '/midpoints' | '/spreads',
  tokenIds: readonly string[],
  o: CallOptions,
): Promise<Map<string, number | null>> {
  const ids = unique(tokenIds)
  const entries = await chunked(ids, async (chunk) => {
    const answer = await post(ctx, path, chunk.map((token_id) => ({ token_id })), ClobBatchValuesSchema, o)
    return Object.entries(answer).map(([id, value]) => [id, num(value)] as const)
  })
  return complete(ids, entries)
}

/**
 * A map with a key for every token asked for, in the order asked: the service leaves unknown and closed tokens out
 * of its answer, and a missing key was too easy to miss. `null` says "asked, no answer".
 */
function complete<V>(ids: readonly string[], entries: readonly (readonly [string, V])[]): Map<string, V | null> {
  const answered = new Map(entries)
  return new Map(ids.map((id) => [id, answered.get(id) ?? null]))
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)]
}
