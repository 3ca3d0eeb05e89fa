/**
 * `hookpilot serve`: runs the gateway from a config file until SIGTERM or SIGINT, then shuts down gracefully.
 */
import { resolve } from 'node:path'
import type { HookpilotConfig } from '../core/config/schema.js'
import { createGateway, loadConfig } from '../index.js'
import { configDir } from '../core/gateway/gateway.js'
import { recordListening } from './listening.js'
import { openSubscriptions } from './state-access.js'
import { parse, toPort, UsageError } from './args.js'
import { onParentGone, watchesParent } from './parent-watch.js'
import type { Subcommand } from './io.js'

const HELP = `Usage: hookpilot serve [--config FILE] [--host HOST] [--port PORT] [--exit-with-parent]

Runs the webhook gateway until SIGTERM or SIGINT (Ctrl-C), then lets running agent runs finish.

Options:
  -c, --config FILE      configuration file (default: ./config.yaml)
      --host HOST        bind address, overrides platforms.webhook.extra.host
  -p, --port PORT        port, overrides platforms.webhook.extra.port (0 picks a free one)
      --exit-with-parent shut down (as on SIGTERM) when the process that started serve is gone; always on
                         when npm started it (npx hookpilot serve, npm start)
  -h, --help             show this help

Environment: WEBHOOK_ENABLED, WEBHOOK_HOST, WEBHOOK_PORT, WEBHOOK_SECRET override the file; \${VAR} in the file
is read from the environment. See docs/configuration.md.
`

/** Runs the gateway; resolves with the exit code once it has shut down. */
export const serve: Subcommand = async (args, io) => {
  const { values, positionals } = parse(args, {
    config: { type: 'string', short: 'c', default: 'config.yaml' },
    host: { type: 'string' },
    port: { type: 'string', short: 'p' },
    'exit-with-parent': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  }, 'serve')
  if (values.help) {
    io.stdout.write(HELP)
    return 0
  }
  if (positionals.length > 0) {
    throw new UsageError(`serve takes no arguments (got ${positionals.join(' ')}); the config file goes after --config.`)
  }
  if (values.host !== undefined && values.host.trim() === '') throw new UsageError('--host must not be empty.')
  const port = toPort(values.port, '--port')
  // The flags go in as the WEBHOOK_* overrides, before validation: every check that depends on the bind address
  // (INSECURE_NO_AUTH only on loopback, for static routes and subscriptions alike) sees the address really bound.
  const env = {
    ...io.env,
    ...(values.host === undefined ? {} : { WEBHOOK_HOST: values.host }),
    ...(port === undefined ? {} : { WEBHOOK_PORT: String(port) }),
  }
  const overrideNames = {
    ...(values.host === undefined ? {} : { WEBHOOK_HOST: '--host' }),
    ...(port === undefined ? {} : { WEBHOOK_PORT: '--port' }),
  }
  const config = await loadConfig(values.config, { env, overrideNames })
  if (!config.platforms.webhook.enabled) {
    io.stderr.write('The webhook platform is disabled (platforms.webhook.enabled: false, or WEBHOOK_ENABLED=false): nothing to serve. Set it to true.\n')
    return 1
  }
  const baseDir = configDir(values.config)
  const nothing = await nothingToServe(config, baseDir, values.config)
  if (nothing !== undefined) {
    io.stderr.write(nothing)
    return 1
  }
  const gateway = await createGateway(config, [], { baseDir })
  // Listening for the signals before the startup line is out: a supervisor (or a test) that stops the
  // gateway as soon as it has seen that line must get the graceful shutdown, not node's default exit. The
  // first signal starts it; a second (Ctrl-C again) stops the running jobs at once, kept for the next start;
  // a third is node's own (an immediate exit).
  let signals = 0
  let stopWatching = () => {}
  const stopped = new Promise<void>((done) => {
    const onSignal = () => {
      if (++signals === 1) return done()
      process.off('SIGTERM', onSignal).off('SIGINT', onSignal)
      void gateway.close({ now: true }) // the first close() reports how the shutdown ended
    }
    process.on('SIGTERM', onSignal).on('SIGINT', onSignal)
    // An orphan would hold the port and its jobs with no one to stop it: its parent's end is a first signal.
    if (watchesParent(values['exit-with-parent'], io.env)) {
      stopWatching = onParentGone((parent) => {
        io.stderr.write(`hookpilot serve: the process that started it (pid ${parent}) is gone: shutting down as on SIGTERM\n`)
        onSignal()
      })
    }
  })
  const address = await gateway.listen()
  // Admin commands started beside this one (test, send, subscribe) reach the port really bound.
  const forget = recordListening(resolve(values.config), address.host, address.port)
  await stopped
  stopWatching()
  await gateway.close()
  forget()
  return 0
}

/** Whether `platforms.market` is enabled with a watch: a gateway with only market alerts has work to do. */
function watchesMarkets(config: HookpilotConfig): boolean {
  const market = (config.platforms as Record<string, unknown>)['market']
  if (typeof market !== 'object' || market === null) return false
  const { enabled, extra } = market as { enabled?: unknown; extra?: { watches?: unknown } }
  const watches = extra?.watches
  return enabled === true && typeof watches === 'object' && watches !== null && Object.keys(watches).length > 0
}

/**
 * A gateway with no route, static or dynamic, answers 404 to everything: a config mistake, said at once with
 * what to add, rather than a server that listens and does nothing. (Subscriptions that exist but are empty
 * count: `hookpilot subscribe` may fill them while it runs.)
 */
async function nothingToServe(config: HookpilotConfig, baseDir: string, configArg: string): Promise<string | undefined> {
  if (Object.keys(config.platforms.webhook.extra.routes).length > 0) return undefined
  if (watchesMarkets(config)) return undefined
  const { store, close } = await openSubscriptions(config, baseDir)
  try {
    if ((await store.read()).status !== 'missing') return undefined
  } finally {
    await close()
  }
  return (
    `Nothing to serve: ${configArg} has no routes (platforms.webhook.extra.routes) and there are no subscriptions ` +
    `(${store.where}). Add a route to the config (see examples/config.yaml), or create one ` +
    `with "hookpilot subscribe <name> --config ${configArg}".\n`
  )
}
