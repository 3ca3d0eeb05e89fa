/**
 * `hookpilot market`: prediction-market data at the terminal, built on `hookpilot/sdk`. Tables by default,
 * `--json` for scripts, `--mock` to run against the built-in mock services.
 */
import { suggest } from '../../util/suggest.js'
import { MarketError, createMarketClient, type MarketClient, type MarketClientOptions } from '../../sdk/index.js'
import type { CliIO, Subcommand } from '../io.js'
import { book, history, oi, trades } from './tokens.js'
import { events, markets, search } from './catalog.js'
import { flag, type MarketCommand } from './command.js'
import { watch } from './watch.js'
import { ExportInterrupted, exportCommand } from './export.js'
import { mcp } from './mcp.js'
import { mock } from './mock.js'
import { CliUsageError, parse } from './options.js'

const COMMANDS: Readonly<Record<string, MarketCommand>> = { search, events, markets, book, history, trades, oi, watch, export: exportCommand, mock, mcp }

const COMMON_HELP = `Common options:
  --json            print JSON instead of tables
  --mock            use the built-in mock services (offline)
  -h, --help        show help
`

const HELP = `Usage: hookpilot market <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}

${COMMON_HELP}
Base URLs can be changed with HOOKPILOT_GAMMA_URL, HOOKPILOT_CLOB_URL, HOOKPILOT_DATA_URL and HOOKPILOT_WS_URL.
Run "hookpilot market <command> --help" for a command's options. Docs: docs/sdk.md
`

/**
 * Runs `hookpilot market ...`; resolves with the exit code (0 ok, 1 failed request, 2 bad input).
 *
 * @example
 * ```ts
 * const code = await runMarket(['history', 'will-1-fed-rate-cut-happen-in-2025', '--interval', '1w'], processIO())
 * ```
 */
export const runMarket: Subcommand = async (args, io) => {
  const [name, ...rest] = args
  // Asked for, help is the output (stdout, 0); with no command at all it explains an error (stderr, 2).
  if (name === undefined) {
    io.stderr.write(HELP)
    return 2
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(HELP)
    return 0
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (command === undefined) {
    const close = suggest(name, Object.keys(COMMANDS))
    io.stderr.write(`hookpilot market: unknown command "${name}"${close === undefined ? '' : ` (did you mean "${close}"?)`}; use one of ${Object.keys(COMMANDS).join(', ')}\n`)
    return 2
  }
  try {
    const parsed = parse(rest, command.options)
    if (flag(parsed, 'help')) {
      io.stdout.write(`Usage: ${command.usage}\n\n${command.summary}\n\n${command.help ? `${command.help}\n` : ''}${COMMON_HELP}`)
      return 0
    }
    if ('run' in command) return await command.run(parsed, io)
    const work = command.prepare(parsed)
    return await withClient(io, flag(parsed, 'mock') ?? false, command.clientOptions?.(parsed) ?? {}, async (pm) => {
      await work({ pm, io, json: flag(parsed, 'json') ?? false })
      return 0
    })
  } catch (err) {
    return report(io, name, err)
  }
}

async function withClient(
  io: CliIO,
  mock: boolean,
  options: MarketClientOptions,
  run: (pm: MarketClient) => Promise<number>,
): Promise<number> {
  if (!mock) {
    const { HOOKPILOT_GAMMA_URL: gammaUrl, HOOKPILOT_CLOB_URL: clobUrl, HOOKPILOT_DATA_URL: dataUrl, HOOKPILOT_WS_URL: wsUrl } = io.env
    return run(createMarketClient({ ...options, gammaUrl, clobUrl, dataUrl, wsUrl }))
  }
  // Only the node:http server: msw is an optional peer dependency and may be absent.
  const { startMockMarketServer } = await import('../../sdk/mock/server.js')
  // Four moves a second: `watch --mock` shows a market that moves at a pace a person can follow.
  // Trades answers of 500 as the real service gives, so an export of the busy mock market takes seconds, not minutes.
  const server = await startMockMarketServer({ port: 0, tickMs: 250, tradesPage: 500 })
  try {
    return await run(createMarketClient({ ...options, ...server }))
  } finally {
    await server.close()
  }
}

function report(io: CliIO, name: string, err: unknown): number {
  if (err instanceof CliUsageError) {
    io.stderr.write(`hookpilot market ${name}: ${err.message}\n`)
    return 2
  }
  if (MarketError.is(err)) {
    io.stderr.write(`hookpilot market ${name}: ${err.message}${hintFor(err)}\n`)
    return MarketError.is(err, 'ERR_MARKET_USAGE') ? 2 : 1
  }
  if (err instanceof ExportInterrupted) {
    io.stderr.write(`hookpilot market ${name}: ${err.message}\n`)
    return 130 // as a shell reports a command ended by SIGINT
  }
  throw err
}

/** What to try next after a failed request, when there is something useful to say. */
function hintFor(err: MarketError): string {
  if (err.code !== 'ERR_MARKET_NOT_FOUND') return ''
  // The order-book service answers the same 404 for a closed market and an unknown token.
  if (/orderbook/i.test(err.serviceMessage ?? '')) {
    return '\nClosed (resolved) markets have no order book; nor has a token id the service does not know.'
  }
  return '\nCheck the slug or id: "hookpilot market search <text>" finds markets.'
}
