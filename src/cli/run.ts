/**
 * The `hookpilot` command: one subcommand per file, errors shown as one paragraph with what to change.
 */
import { createRequire } from 'node:module'
import { suggest } from '../util/suggest.js'
import { GatewayError } from '../core/errors.js'
import { UsageError } from './args.js'
import { processIO, type CliIO, type Subcommand } from './io.js'

const HELP = `Usage: hookpilot <command> [options]

Commands:
  serve       run the webhook gateway from a config file
  check       validate a config file without starting anything: every problem at once
  subscribe   add a webhook route at run time (a dynamic subscription); prints its URL and secret
  list        list the routes, static and dynamic (secrets never shown)
  remove      remove a dynamic subscription
  test        send a signed test delivery to a dynamic subscription on the running gateway
  send        send a signed delivery to any route (static ones too) on the running gateway
  jobs        list, show, retry and purge the gateway's jobs (list | show <id> | retry <id> | purge)
  reconcile   ask GitHub to redeliver the GitHub App's failed deliveries the gateway has no job for
  import-subscriptions  copy the subscriptions file into the shared store (state.driver: redis)
  dev         stand-ins to try the gateway on one machine: "dev github", a fake GitHub for the review flow
  market      query prediction-market data (search, events, markets, book, history, trades, oi, watch, export, mock, mcp)

Run "hookpilot <command> --help" for a command's options, "hookpilot --version" for the version.
Docs: docs/README.md
`

const COMMANDS: Readonly<Record<string, () => Promise<Subcommand>>> = {
  serve: async () => (await import('./serve.js')).serve,
  check: async () => (await import('./check.js')).check,
  subscribe: async () => (await import('./subscribe.js')).subscribe,
  list: async () => (await import('./list.js')).list,
  remove: async () => (await import('./remove.js')).remove,
  test: async () => (await import('./test-webhook.js')).testWebhook,
  send: async () => (await import('./send.js')).send,
  jobs: async () => (await import('./jobs.js')).jobs,
  reconcile: async () => (await import('./reconcile.js')).reconcileCommand,
  'import-subscriptions': async () => (await import('./import-subscriptions.js')).importSubscriptions,
  dev: async () => (await import('./dev.js')).dev,
  market: async () => (await import('./market/index.js')).runMarket,
}

/** Runs the command line; resolves with the exit code. */
export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  const [name, ...rest] = argv
  if (name === '--version' || name === '-v') {
    // ../../package.json from both src/cli and dist/cli: the package root.
    const { version } = createRequire(import.meta.url)('../../package.json') as { version: string }
    io.stdout.write(`hookpilot ${version}\n`)
    return 0
  }
  if (name === undefined) {
    io.stderr.write(HELP) // usage as an error: no command was given
    return 2
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(HELP)
    return 0
  }
  // Own keys only: `hookpilot constructor` must not find Object's constructor.
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (!load) {
    const close = suggest(name, Object.keys(COMMANDS))
    io.stderr.write(`hookpilot: unknown command "${name}"${close === undefined ? '' : ` (did you mean "${close}"?)`}.\n\n${HELP}`)
    return 2
  }
  try {
    return await (await load())(rest, io)
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`hookpilot ${name}: ${err.message}\n`)
      return 2
    }
    if (GatewayError.is(err)) {
      io.stderr.write(`hookpilot ${name}: ${err.message}\n`)
      return 1
    }
    throw err
  }
}

