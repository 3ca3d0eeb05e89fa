/**
 * One MCP tool of the market server: a name, a description an agent reads to choose it, an input schema, and a
 * handler that makes a bounded number of SDK calls. The registry (registry.ts) lists them; the server
 * (server.ts) registers each the same way, so a new read is one more definition and nothing else.
 */
import type * as z from 'zod'
import type { MarketClient } from '../client.js'

/** What a tool's handler runs with. */
export interface ToolContext {
  /** The server's one client: every call of every tool spends the same request budget. */
  readonly pm: MarketClient
  /** Aborts when the MCP client cancels the call. */
  readonly signal: AbortSignal
}

/** A tool's definition, typed by its input schema. */
export interface MarketToolDefinition<S extends z.ZodObject> {
  /** The tool's name (`[a-z_]`), as agents call it. */
  readonly name: string
  /** A short human title. */
  readonly title: string
  /** What the tool is for and what it returns: an agent chooses tools by this text. */
  readonly description: string
  /** The arguments; a strict object, so a misspelt argument is refused rather than ignored. */
  readonly input: S
  /** Reads what was asked: one page at most, never a walk; the result is sent as JSON. */
  run(args: z.output<S>, ctx: ToolContext): Promise<unknown>
}

/** A tool as the registry holds it: its input type erased, so tools of different inputs share one list. */
export interface MarketTool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly input: z.ZodObject
  run(args: unknown, ctx: ToolContext): Promise<unknown>
}

/**
 * Defines a tool, checking its handler against its input schema; the server only hands it arguments that schema
 * accepted.
 *
 * @example
 * ```ts
 * export const midpoint = defineTool({
 *   name: 'midpoint', title: 'Midpoint', description: "A token's midpoint price.",
 *   input: z.strictObject({ token: tokenId }),
 *   run: ({ token }, { pm, signal }) => pm.token(token).midpoint({ signal }),
 * })
 * ```
 */
export function defineTool<S extends z.ZodObject>(tool: MarketToolDefinition<S>): MarketTool {
  // The erasure (method parameters are checked bivariantly) is sound because server.ts passes `run` only what `input` parsed.
  return tool
}

/** An argument that the schema accepted alone but not with the others (both `token` and `slug`, a window too long). */
export class ToolArgumentError extends Error {
  override readonly name = 'ToolArgumentError'
}
