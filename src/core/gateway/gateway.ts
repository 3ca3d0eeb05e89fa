/**
 * The composition root: plugins into a container of the gateway's own, the container into a pipeline, a
 * dispatcher and one request flow with its adapters (node:http, fetch, `handle()`). Knows no concrete plugin:
 * the built-ins arrive as plugins too.
 */
import { dirname, resolve } from 'node:path'
import { staticRoutes, type HookpilotConfig } from '../config/config.js'
import { compose, type Composition } from './compose.js'
import { createBodyBudget } from '../http/body-budget.js'
import { clientAddressResolver, trustedProxy } from '../http/client-address.js'
import { clientErrorListener, type ClientErrorListener } from '../http/client-error.js'
import { createDispatcher } from '../jobs/dispatcher.js'
import { scheduleOf } from '../jobs/retry-schedule.js'
import { jobWorker } from './agent-environment.js'
import { createEvents } from '../events.js'
import { GatewayError } from '../errors.js'
import { createFetchHandler, type FetchHandler } from '../http/fetch.js'
import { createFlow, PASS, type BodyRead } from '../http/flow.js'
import { ERRORS, type GatewayResponse } from '../http/responses.js'
import { startAll } from './lifecycle.js'
import { createNodeHandler, type NodeConnections, type NodeHandler } from '../http/node.js'
import { listenOn, type ListenAddress, type ListenOptions } from '../http/listen.js'
import { createLogger } from '../log/logger.js'
import { throttledWarn } from '../log/throttle.js'
import { createIntake } from '../pipeline/intake.js'
import { createSourceRoutes } from '../routes/source-routes.js'
import { createPipeline } from '../pipeline/pipeline.js'
import { createRouteTable, type MutableRouteTable } from '../routes/route-table.js'
import { refuseInsecureRoutes } from './insecure-routes.js'
import { createSecretSet, type SecretSet } from '../secrets/secret-set.js'
import { createGatewayServer, type GatewayServer } from '../http/server.js'
import { fileSubscriptionStore, subscriptionsPath } from '../routes/subscriptions/index.js'
import { startInOrder } from './startup.js'
import type { AgentRunner } from '../types.js'

/** A request for {@link Gateway.handle}: headers in any case, body as bytes or text. */
export interface GatewayRequest {
  readonly method: string
  readonly path: string
  readonly headers?: Readonly<Record<string, string | readonly string[] | undefined>> | undefined
  readonly body?: Uint8Array | string | undefined
}

export type { GatewayResponse } from '../http/responses.js'
export type { FetchHandler, FetchInfo } from '../http/fetch.js'
export type { ListenAddress, ListenOptions } from '../http/listen.js'
export type { ClientErrorListener } from '../http/client-error.js'

/** A running (or ready to run) webhook gateway. */
export interface Gateway {
  /** One request through the whole request table, without a socket. */
  handle(req: GatewayRequest): Promise<GatewayResponse>
  /** node `(req, res)` handler and Express/Connect middleware (`next()` for paths that are not the gateway's). */
  readonly handler: NodeHandler
  /**
   * A `clientError` listener for a server of your own that serves {@link Gateway.handler}: node's answers to
   * malformed HTTP and slow requests become JSON, are logged throttled, and never hide a request in flight.
   * `listen()` attaches it itself.
   *
   * @example
   * ```ts
   * http.createServer(gateway.handler).on('clientError', gateway.clientError).listen(8644)
   * ```
   */
  readonly clientError: ClientErrorListener
  /**
   * Web-standard handler: a `Request` in, a `Response` out, for fetch-style servers (Hono, Bun, Deno).
   *
   * @example
   * ```ts
   * const app = new Hono()
   * app.all('/webhooks/*', (c) => gateway.fetch(c.req.raw))
   * ```
   */
  readonly fetch: FetchHandler
  /** Starts a node:http server (host and port from the config unless given) and prints the startup line. */
  listen(options?: ListenOptions): Promise<ListenAddress>
  /**
   * Stops accepting, lets running agent runs finish within the grace period, then stops them. A later call
   * waits for the same shutdown; with `{ now: true }` it cuts the grace period short: the running jobs are
   * stopped at once and stored as they were (a durable backend runs them at the next start, without waiting
   * for a lease).
   */
  close(options?: CloseOptions): Promise<void>
  /** The routes the gateway answers (static and dynamic). */
  readonly routes: MutableRouteTable
  /** The validated configuration. */
  readonly config: HookpilotConfig
  /** What the gateway holds now against its limits (`max_unverified_bytes`, `max_connections`). */
  usage(): GatewayUsage
}

/** Options of {@link Gateway.close}. */
export interface CloseOptions {
  /** Stop the running jobs now instead of at the end of the grace period (a second Ctrl-C). */
  readonly now?: boolean | undefined
}

/** See {@link Gateway.usage}. */
export interface GatewayUsage {
  /** Bytes of request bodies held before their signature was checked, all requests together. */
  readonly unverifiedBytes: number
  /** Connections open to the server `listen()` started (0 without one). */
  readonly connections: number
}

/** How a gateway is built besides its configuration and plugins. */
export interface BuildOptions {
  /** Where relative paths of a configuration (skills_dir, state.path) are resolved: the config file's folder, else cwd. */
  readonly baseDir?: string | undefined
  /**
   * Every secret the gateway knows (see {@link createSecretSet}): redacted from each log line, stored reason
   * and delivered answer, and kept from the programs it runs. The gateway adds its routes' secrets;
   * `createGateway` adds the configuration's.
   */
  readonly secrets?: SecretSet | undefined
}

export type { Composition } from './compose.js'

/**
 * Builds a gateway from a parsed configuration and its plugins. Throws a ConfigError naming every route whose
 * target or runner is missing, and every plugin whose options are wrong.
 */
export async function buildGateway(config: HookpilotConfig, composition: Composition, options: BuildOptions = {}): Promise<Gateway> {
  const extra = config.platforms.webhook.extra
  const baseDir = options.baseDir ?? process.cwd()
  const secrets = options.secrets ?? createSecretSet()
  const routes = createRouteTable(staticRoutes(config), (list) => secrets.set('routes', list.flatMap((r) => r.secrets)))
  const { scope, plugins, setUp, slots, runner, state, warnings } = await compose(config, composition, {
    baseDir, secrets, routes: routes.list(), log: createLogger({ level: config.log_level, format: config.log_format }),
  })
  // Whoever logs (a plugin's logger included), and whatever a line quotes (an agent's stderr, an API's error),
  // no known secret gets through: the slot's logger comes redacted.
  const { log, clock, targets } = slots
  for (const warning of warnings) log.warn(`WARNING: ${warning}`)
  const events = createEvents(log)
  // The state backend opens first (a bad state.path stops the start with what to change), then the plugins
  // that hold resources of their own; close() runs them in the reverse order, then disposes shared resources.
  const lifecycle = await startAll([state, ...plugins.filter((p) => p.state !== state)], log).catch(async (err: unknown) => {
    await scope.dispose()
    throw err
  })
  if (!slots.rateLimiter) throw new GatewayError('ERR_PLUGIN', 'Nothing provides a rate limiter: pass a plugin that does (the built-ins provide one).')
  const pipeline = createPipeline({
    sources: slots.sources,
    filters: slots.filters,
    dedup: state.dedup,
    limiter: slots.rateLimiter,
    queue: state.queue,
    log,
    clock,
    signal: lifecycle.signal,
    events,
  })
  // The dispatcher also finds the routes of sources that are not HTTP; the request flow never does.
  const sourceRoutes = createSourceRoutes(plugins.flatMap((p) => p.routes ?? []), targets, setUp.hints)
  const dispatcherRoutes = { get: (name: string) => routes.get(name) ?? sourceRoutes.get(name), list: () => [...routes.list(), ...sourceRoutes.list()] }
  const dispatcher = (jobRunner: AgentRunner) =>
    createDispatcher({
      routes: dispatcherRoutes,
      runner: jobRunner,
      targets,
      log,
      clock,
      skillsDir: resolve(options.baseDir ?? process.cwd(), config.skills_dir),
      timeoutMs: config.agent.timeout_seconds * 1000,
      retry: scheduleOf(config.delivery.retry),
      agentRetry: scheduleOf(config.agent.retry),
      events,
      redact: secrets.redact,
    })
  // A plugin that gives the agent credentials of its job's own (a GitHub App's installation token) needs the
  // job at run time: the runner is then bound to each leased job.
  const environments = plugins.flatMap((p) => (p.agentEnvironment ? [p.agentEnvironment] : []))
  // Sources that are not HTTP (a market stream) admit their events past the request table's HTTP steps.
  const intake = createIntake({ dedup: state.dedup, limiter: slots.rateLimiter, queue: state.queue, log, clock, events }, sourceRoutes)
  // Dynamic subscriptions: in a plugin's store (Redis), else in the file beside config.yaml (or where
  // subscriptions_file says); skipped entries are logged. A source that is not HTTP keeps its own there too.
  const subscriptionsFile = subscriptionsPath(config, options.baseDir)
  const store = slots.subscriptions ?? (subscriptionsFile === undefined ? undefined : fileSubscriptionStore(subscriptionsFile))
  // Every route a stored job may name is back before the queue leases (a restart loses no subscribed job).
  const subscriptions = await startInOrder({
    plugins, events, state, intake, sourceRoutes, store,
    subscriptions: { config, routes, targets, hints: setUp.hints, log },
    worker: jobWorker(dispatcher, runner, environments),
  })

  let closing = false
  let listening: GatewayServer | undefined
  const budget = createBodyBudget(extra.max_unverified_bytes)
  const flow = createFlow({
    routes,
    pipeline,
    maxBodyBytes: extra.max_body_bytes,
    budget,
    clientAddress: clientAddressResolver(extra.trust_proxy),
    log,
    clock,
    closing: () => closing,
    readiness: () => lifecycle.ready(),
    queueFull: async () => (await state.jobs.counts()).queued >= config.agent.max_queue,
    events,
    endpoints: plugins.flatMap((p) => p.endpoints ?? []),
  })
  const tracked: NodeConnections = { inFlight: new WeakMap(), poisoned: new WeakSet(), overflow: new WeakSet() }
  const handler = createNodeHandler(flow, log, clock, tracked)
  const clientError = clientErrorListener(tracked, log, clock)
  const refusedConnection = throttledWarn(log, clock)

  async function handle(req: GatewayRequest): Promise<GatewayResponse> {
    const body = typeof req.body === 'string' ? Buffer.from(req.body) : (req.body ?? new Uint8Array())
    const result = await flow({
      method: req.method.toUpperCase(),
      path: req.path,
      headers: lowerCase(req.headers),
      // The caller holds the body already: it is not the gateway's to budget.
      readBody: async (limit): Promise<BodyRead> => (body.byteLength > limit ? { kind: 'too-large' } : { kind: 'ok', body }),
    })
    return result === PASS ? ERRORS.notFound : result
  }

  async function listen(listenOptions: ListenOptions = {}): Promise<ListenAddress> {
    if (listening) throw new GatewayError('ERR_LISTEN', 'This gateway is already listening; create another to listen twice.')
    const host = listenOptions.host ?? extra.host
    refuseInsecureRoutes(routes.list(), host)
    listening = createGatewayServer(handler, clientError, tracked, {
      headersTimeoutMs: extra.headers_timeout_seconds * 1000,
      requestTimeoutMs: extra.request_timeout_seconds * 1000,
      maxConnections: extra.max_connections,
      guard: {
        maxPerClient: extra.max_connections_per_client,
        firstByteTimeoutMs: extra.first_byte_timeout_seconds * 1000,
        isTrustedProxy: trustedProxy(extra.trust_proxy),
        onClosed: (why, client) => refusedConnection(`connection-closed\u0000${why}`, `closed a connection: past ${why}`, { client }),
      },
    })
    const address = await listenOn(listening.server, { host, port: listenOptions.port ?? extra.port }).catch((err: unknown) => {
      listening = undefined // a failed listen (port taken) may be retried on another port
      throw err
    })
    const names = routes.list().map((r) => r.name)
    // Where accepted jobs are kept and what answers them, said where an operator looks first (never a password:
    // a backend's `where` names a file or a server without one).
    const kept = state.where === undefined ? state.name : `${state.name} (${state.where})`
    // The routes of sources that are not HTTP (a market watch's `market:<watch>`) are work too: a config whose only
    // work is a watch must not read as a gateway with nothing to do.
    const watched = sourceRoutes.list().map((r) => r.name)
    const others = watched.length ? ` — watches: ${watched.join(', ')}` : ''
    log.info(`[webhook] Listening on ${address.host}:${address.port} — routes: ${names.length ? names.join(', ') : '(none configured)'}${others} — state: ${kept} — runner: ${runner.name}`)
    return address
  }

  let closed: Promise<void> | undefined
  // A second call waits for the first: an embedder that calls close() twice must not exit mid-grace. Asked to
  // stop now, it cuts the grace period short (a second stop of the queue aborts the running tries).
  const close = (options: CloseOptions = {}): Promise<void> => {
    if (closed && options.now) {
      log.warn('shutdown: stopping the running jobs now; they are kept and run again at the next start')
      void state.queue.stop(0) // the first stop's promise reports; this one only cuts its grace short
    }
    return (closed ??= shutdown(options.now ? 0 : extra.shutdown_grace_seconds))
  }

  async function shutdown(graceSeconds: number): Promise<void> {
    closing = true
    subscriptions?.stop()
    const running = (await state.jobs.counts().catch(() => undefined))?.running
    // Said at once: a grace period of up to half a minute must not look like a hang.
    log.info(`shutdown: no new webhooks (they are answered 503); waiting up to ${graceSeconds} s for ${running === undefined ? 'the running jobs' : `${running} running job${running === 1 ? '' : 's'}`} to finish`, {
      grace_seconds: graceSeconds,
    })
    // The listener stays open through the grace period: new webhooks are answered 503 `Shutting down` (with
    // Retry-After), not refused at the socket, while the running jobs finish.
    const report = await state.queue.stop(graceSeconds * 1000)
    if (!report.finished) log.warn('grace period over: stopped the jobs still running', { grace_seconds: extra.shutdown_grace_seconds })
    if (report.left === 0) log.info('shutdown: every job finished')
    else if (state.durable) log.warn(`shutdown: ${report.left} jobs left stored; they run at the next start`, { left: report.left })
    else log.warn(`shutdown: dropped ${report.left} queued events (state.driver is memory, which keeps nothing)`, { dropped: report.left })
    const server = listening?.server
    const stopped = server ? new Promise<void>((done) => server.close(() => done())) : Promise.resolve()
    server?.closeAllConnections()
    await stopped
    await lifecycle.closeAll()
    await scope.dispose()
  }

  const usage = (): GatewayUsage => ({ unverifiedBytes: budget.held(), connections: listening?.connections() ?? 0 })
  return { handle, handler, clientError, fetch: createFetchHandler(flow), listen, close, routes, config, usage }
}

/** The folder of a config file, for {@link BuildOptions.baseDir}. */
export function configDir(path: string): string {
  return dirname(resolve(path))
}

function lowerCase(headers: GatewayRequest['headers']): Record<string, string> {
  const out = Object.create(null) as Record<string, string>
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) out[key.toLowerCase()] = typeof value === 'string' ? value : value.join(', ')
  }
  return out
}
