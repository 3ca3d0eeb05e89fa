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

/** A market's condition id. */
export const conditionArg = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'a condition id is 0x and 64 hex digits')
  .describe("the market's condition id (a market's conditionId)")

/** A proxy wallet, as the Data API names traders. */
export const walletArg = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'a wallet is 0x and 40 hex digits')
  .describe("a trader's proxy wallet (0x and 40 hex digits; trades and holders name them)")

/** Where a v2 page starts: the `nextCursor` of the page before, as the tool returned it. */
export const cursorArg = z
  .string()
  .min(1)
  .max(2_000)
  .describe('the nextCursor of the previous page, to read the next one (leave out for the first page)')

/** The market `slug` or `conditionId` names, when either is given; giving both is refused. */
export async function conditionOf(
  pm: MarketClient,
  args: { readonly slug?: string | undefined; readonly conditionId?: string | undefined },
  signal: AbortSignal,
): Promise<string | undefined> {
  if (args.slug !== undefined && args.conditionId !== undefined) throw new ToolArgumentError('give either slug or conditionId, not both')
  return args.slug !== undefined ? (await pm.markets.bySlug(args.slug, { signal })).conditionId : args.conditionId
}
