/** The arguments several tools share, and how a tool finds the token it was pointed at. */
import * as z from 'zod'
import type { MarketClient } from '../client.js'
import type { TokenHandle } from '../clob/token.js'
import { MAX_OUTCOMES, MAX_TITLE_CHARS } from './bounds.js'
import { ToolArgumentError } from './tool.js'

/** A market slug, as the catalog spells them. */
export const slugArg = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .regex(/^[\w-]+$/, 'a slug is letters, digits, - and _')
  .describe('the market\'s slug, e.g. "will-1-fed-rate-cut-happen-in-2025" (search finds slugs)')

/** An outcome token id: a long decimal string (never a number, which would lose digits). */
export const tokenArg = z
  .string()
  .trim()
  .regex(/^\d{1,100}$/, 'a token id is a string of decimal digits')
  .describe("an outcome token id (a market's outcomes[].tokenId)")

/** An outcome of a market: its label (`Yes`) or its index (0 is Yes on a binary market). */
export const outcomeArg = z
  .union([z.int().min(0).max(MAX_OUTCOMES * 10), z.string().trim().min(1).max(MAX_TITLE_CHARS)])
  .describe('with slug: the outcome, by label ("Yes", "No", a name) or index (default 0, Yes on a binary market)')

/** The arguments that point at one outcome token. */
export const tokenTarget = { token: tokenArg.optional(), slug: slugArg.optional(), outcome: outcomeArg.optional() }

/** The token `token` names, or `slug`'s `outcome`; exactly one of `token` and `slug` must be given. */
export async function tokenOf(
  pm: MarketClient,
  args: { readonly token?: string | undefined; readonly slug?: string | undefined; readonly outcome?: string | number | undefined },
  signal: AbortSignal,
): Promise<TokenHandle> {
  if (args.token !== undefined) {
    if (args.slug !== undefined) throw new ToolArgumentError('give either token or slug, not both')
    if (args.outcome !== undefined) throw new ToolArgumentError('outcome goes with slug; a token is already one outcome')
    return pm.token(args.token)
  }
  if (args.slug === undefined) throw new ToolArgumentError('give token (an outcome token id) or slug (a market slug)')
  return pm.market(await pm.markets.bySlug(args.slug, { signal })).outcome(args.outcome ?? 0)
}
