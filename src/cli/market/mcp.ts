/** `hookpilot market mcp`: the market's reads as tools of an MCP server over stdio, for agents. */
import { createRequire } from 'node:module'
import { mcpRateLimit } from '../../sdk/mcp/budget.js'
import { MARKET_TOOLS } from '../../sdk/mcp/registry.js'
import { serveMarketMcp } from '../../sdk/mcp/server.js'
import { str, type MarketCommand, type Parsed } from './command.js'
import { count, noPositionals } from './options.js'

/** Seconds a tool call waits for the request budget before it is refused (an agent then knows to come back later). */
const DEFAULT_MAX_WAIT_S = 10

function budgetOf(parsed: Parsed) {
  const perWindow = str(parsed, 'rate') === undefined ? undefined : count('rate', str(parsed, 'rate'), 1, 10_000)
  const maxWaitS = count('max-wait', str(parsed, 'max-wait'), DEFAULT_MAX_WAIT_S, 600)
  return { perWindow, maxWaitMs: maxWaitS * 1000 }
}

/** `hookpilot market mcp`. */
export const mcp: MarketCommand = {
  summary: 'serve the market reads as MCP tools over stdio (for agents)',
  usage: 'hookpilot market mcp [--rate n] [--max-wait seconds] [--mock]',
  help: `Tools: ${MARKET_TOOLS.map((t) => t.name).join(', ')}. Each returns one bounded page as JSON.
The server speaks MCP on stdin/stdout (start it from an MCP client, such as claude --mcp-config); it stops when stdin closes.
All calls share one request budget.

Options:
  --rate <n>        requests per 10 s to each service (default: the services' published limits)
  --max-wait <s>    seconds a call may wait for the budget before it is refused (default ${DEFAULT_MAX_WAIT_S})
`,
  options: { rate: { type: 'string' }, 'max-wait': { type: 'string' } },
  prepare(parsed) {
    noPositionals(parsed.positionals, this.usage)
    budgetOf(parsed)
    const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string }
    return async ({ pm, io }) => {
      io.stderr.write(`hookpilot market mcp: serving ${MARKET_TOOLS.length} tools over stdio\n`)
      // stdin is the protocol's input; CliIO has no stdin of its own since no other command reads one.
      await serveMarketMcp({ pm, version, stdin: process.stdin, stdout: io.stdout })
    }
  },
  clientOptions: (parsed) => ({ rateLimit: mcpRateLimit(budgetOf(parsed)) }),
}
