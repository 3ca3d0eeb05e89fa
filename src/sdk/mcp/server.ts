/**
 * The market's MCP server: the SDK's read-only calls as tools of a Model Context Protocol server (the official
 * `@modelcontextprotocol/sdk`), over stdio. One client serves every call, so every call spends one request budget.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { MarketClient } from '../client.js'
import { MarketError } from '../errors.js'
import { answerText } from './bounds.js'
import { BudgetExhaustedError } from './budget.js'
import { MARKET_TOOLS } from './registry.js'
import { ToolArgumentError, type MarketTool } from './tool.js'

/** Options of {@link createMarketMcpServer}. */
export interface MarketMcpServerOptions {
  /** The client every tool calls; give it `rateLimit: mcpRateLimit(...)` so no call waits long on the budget. */
  readonly pm: MarketClient
  /** The version the server reports to clients. */
  readonly version: string
  /** The tools to serve (default every tool of the registry). */
  readonly tools?: readonly MarketTool[] | undefined
}

/**
 * An MCP server whose tools read the market through `pm`; connect it to a transport.
 *
 * @example
 * ```ts
 * const pm = createMarketClient({ rateLimit: mcpRateLimit({ maxWaitMs: 10_000 }) })
 * await createMarketMcpServer({ pm, version: '1.0.0' }).connect(new StdioServerTransport())
 * ```
 */
export function createMarketMcpServer(options: MarketMcpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'hookpilot-market', version: options.version },
    { instructions: 'Read-only prediction-market data: search finds markets; market, book, price_history and trades read one.' },
  )
  for (const tool of options.tools ?? MARKET_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        // Reads only, of a service outside this machine, and the same call may answer differently a moment later.
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      },
      // McpServer has parsed the arguments with `tool.input` before this runs; an invalid one never gets here.
      async (args, extra) => call(tool, args, options.pm, extra.signal),
    )
  }
  return server
}

async function call(tool: MarketTool, args: unknown, pm: MarketClient, signal: AbortSignal): Promise<CallToolResult> {
  try {
    return { content: [{ type: 'text', text: answerText(await tool.run(args, { pm, signal })) }] }
  } catch (err) {
    return { isError: true, content: [{ type: 'text', text: `${tool.name}: ${messageOf(err)}` }] }
  }
}

/** What the agent is told; errors of our own say what to change, anything else is named as unexpected. */
function messageOf(err: unknown): string {
  if (err instanceof ToolArgumentError) return `invalid arguments: ${err.message}`
  if (MarketError.is(err) || err instanceof BudgetExhaustedError) return err.message
  if (err instanceof Error) return `unexpected error: ${err.message}`
  return `unexpected error: ${String(err)}`
}

/** Options of {@link serveMarketMcp}. */
export interface ServeMarketMcpOptions extends MarketMcpServerOptions {
  readonly stdin: NodeJS.ReadableStream
  readonly stdout: NodeJS.WritableStream
}

/**
 * Serves the tools over stdio until the client closes `stdin` (as MCP clients end a stdio server), then closes.
 *
 * @example
 * ```ts
 * await serveMarketMcp({ pm, version, stdin: process.stdin, stdout: process.stdout })
 * ```
 */
export async function serveMarketMcp(options: ServeMarketMcpOptions): Promise<void> {
  const server = createMarketMcpServer(options)
  // The transport takes Node's concrete stream classes; any readable and writable does.
  const transport = new StdioServerTransport(options.stdin as typeof process.stdin, options.stdout as typeof process.stdout)
  const ended = new Promise<void>((resolve) => {
    options.stdin.once('end', resolve)
    options.stdin.once('close', resolve)
  })
  await server.connect(transport)
  await ended
  await server.close()
}
