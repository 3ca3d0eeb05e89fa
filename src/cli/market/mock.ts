/**
 * `hookpilot market mock`: the SDK's mock services (catalog, order books, trades, the market channel) on a local
 * port, from any folder, until Ctrl-C: what a config's `gamma_url`, `clob_url`, `data_url` and `ws_url` point at
 * to try market alerts offline. By default the books move like a market from a seed it prints (the same seed
 * replays the run); `POST /admin/move` and `/admin/trade`, or a line typed on stdin, push a move or a trade now.
 */
import { createInterface } from 'node:readline'
import { tokenNamed } from '../../sdk/mock/admin.js'
import type { MockMarketServer } from '../../sdk/mock/server.js'
import { flag, str, type Parsed, type StandaloneCommand } from './command.js'
import { CliUsageError, count } from './options.js'

/** The market docs/market-alerts.md watches: the examples below name it. */
const EXAMPLE = 'will-1-fed-rate-cut-happen-in-2025'

const HELP = `Runs the mock market services until Ctrl-C, and prints their URLs (the keys of platforms.market.extra).

Options:
  --port N        port to listen on (default 8700; 0 for any free one)
  --host H        interface to bind (default 127.0.0.1)
  --seed N        the seed the market moves from (default: a fresh one, printed); the same seed, the same market
  --tick-ms N     ms between two moves of the books (default 500)
  --scripted      the tests' quiet mock: one small change per move, 10-share trades, a midpoint that hardly moves

Push a move or a trade by hand, with curl or on this command's stdin:
  curl -s -d '{"market":"${EXAMPLE}","price":0.6}' http://127.0.0.1:8700/admin/move
  curl -s -d '{"market":"${EXAMPLE}","size":8000,"side":"BUY"}' http://127.0.0.1:8700/admin/trade
  move ${EXAMPLE} 0.6
  trade ${EXAMPLE} 8000 [buy|sell]
A market is its slug (its first outcome's token, the one a watch of the slug reads) or a token id.`

/** `hookpilot market mock`. */
export const mock: StandaloneCommand = {
  summary: 'run the mock market services locally, moving like a market (for offline alerts)',
  usage: 'hookpilot market mock [--port N] [--seed N] [--tick-ms N] [--scripted]',
  help: HELP,
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    seed: { type: 'string' },
    'tick-ms': { type: 'string' },
    scripted: { type: 'boolean' },
  },
  async run(parsed, io) {
    const options = mockOptions(parsed)
    const { startMockMarketServer } = await import('../../sdk/mock/server.js')
    const server = await startMockMarketServer({ ...options, admin: true, tradesPage: 500 }).catch((err: unknown) => {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'EADDRINUSE') throw new CliUsageError(`port ${options.port} of ${options.host} is taken (another mock?): stop it, or pick another with --port N (0 for any free one)`)
      if (code === 'EACCES') throw new CliUsageError(`port ${options.port} of ${options.host} needs privileges this process lacks: pick another with --port N`)
      throw err
    })
    io.stdout.write(banner(server))
    const typed = io.stdin === undefined ? undefined : createInterface({ input: io.stdin, terminal: false })
    typed?.on('line', (line) => {
      const said = command(server, line)
      if (said !== undefined) io.stdout.write(`${said}\n`)
    })
    await new Promise<void>((stop) => {
      process.once('SIGINT', stop).once('SIGTERM', stop)
    })
    typed?.close()
    await server.close()
    io.stdout.write('mock market stopped\n')
    return 0
  },
}

function mockOptions(parsed: Parsed) {
  const port = str(parsed, 'port')
  const seed = str(parsed, 'seed')
  if (port !== undefined && !(/^\d+$/.test(port) && Number(port) <= 65_535)) throw new CliUsageError(`--port must be a port number from 0 to 65535 (got "${port}")`)
  if (seed !== undefined && !(/^\d+$/.test(seed) && Number(seed) < 2 ** 32)) throw new CliUsageError(`--seed must be a whole number from 0 to 4294967295 (got "${seed}")`)
  if (parsed.positionals.length > 0) throw new CliUsageError(`mock takes no arguments (got ${parsed.positionals.join(' ')})`)
  return {
    port: port === undefined ? 8700 : Number(port),
    host: str(parsed, 'host') ?? '127.0.0.1',
    tickMs: count('tick-ms', str(parsed, 'tick-ms'), 500, 60_000),
    motion: flag(parsed, 'scripted') === true ? ('scripted' as const) : ('market' as const),
    seed: seed === undefined ? undefined : Number(seed),
  }
}

function banner(server: MockMarketServer): string {
  const how = server.seed === undefined ? 'scripted moves' : `moving like a market from seed ${server.seed} (--seed ${server.seed} replays this run)`
  return [
    `Mock market services on ${server.url}, ${how}. Point platforms.market.extra at them:`,
    `  gamma_url: ${server.gammaUrl}`,
    `  clob_url: ${server.clobUrl}`,
    `  data_url: ${server.dataUrl}`,
    `  ws_url: ${server.wsUrl}`,
    'Push a move or a trade by hand (Ctrl-C stops the mock):',
    `  curl -s -d '{"market":"${EXAMPLE}","price":0.6}' ${server.url}/admin/move`,
    `  curl -s -d '{"market":"${EXAMPLE}","size":8000}' ${server.url}/admin/trade`,
    `  or type here: move ${EXAMPLE} 0.6 | trade ${EXAMPLE} 8000 [buy|sell]`,
    '',
  ].join('\n')
}

/** One typed command, done; what to print about it (`undefined` for a blank line). */
function command(server: MockMarketServer, line: string): string | undefined {
  const [verb, ref, amount, side] = line.trim().split(/\s+/)
  if (verb === undefined || verb === '') return undefined
  const token = ref === undefined ? undefined : tokenNamed(ref)
  const value = Number(amount)
  if (verb === 'move' && token !== undefined && value > 0 && value < 1) {
    return server.move(token, value) ? `moved ${ref} (token ${token}) to ${value}` : `token ${token} has no live book (a closed market?)`
  }
  const sided = side === undefined ? 'BUY' : side.toUpperCase()
  if (verb === 'trade' && token !== undefined && value > 0 && (sided === 'BUY' || sided === 'SELL')) {
    return server.trade(token, value, sided) ? `traded ${value} shares of ${ref} (token ${token}), ${sided}` : `token ${token} has no live book (a closed market?)`
  }
  return `not understood: "${line.trim()}"; type "move <slug|token> <price between 0 and 1>" or "trade <slug|token> <shares> [buy|sell]"`
}
