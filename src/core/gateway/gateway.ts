/**
 * The `Gateway` object: one request through the request table (`handle`), its adapters (node:http and
 * Express, fetch, the `clientError` listener), `listen` and `close`, over a runtime the composition root
 * (compose.ts) built and started.
 */
import { dirname, resolve } from 'node:path'
import type { HookpilotConfig } from '../config/schema.js'
import { composeRuntime, type BuildOptions, type Composition, type Runtime } from './compose.js'
import { trustedProxy } from '../http/client-address.js'
import { clientErrorListener, type ClientErrorListener } from '../http/client-error.js'
import { GatewayError } from '../errors.js'
import { createFetchHandler, type FetchHandler } from '../http/fetch.js'
import { PASS, type BodyRead } from '../http/flow.js'
import { ERRORS, type GatewayResponse } from '../http/responses.js'
import { createNodeHandler, type NodeConnections, type NodeHandler } from '../http/node.js'
import { listenOn, type ListenAddress, type ListenOptions } from '../http/listen.js'
import { throttledWarn } from '../log/throttle.js'
import type { MutableRouteTable } from '../routes/route-table.js'
import { refuseInsecureRoutes } from './insecure-routes.js'
import { createGatewayServer, type GatewayServer } from '../http/server.js'

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

export type { BuildOptions, Composition } from './compose.js'

/**
 * Builds a gateway from a parsed configuration and its plugins: the composition root (compose.ts) builds and
 * starts its runtime, and this wraps it in the {@link Gateway} object. Throws a ConfigError naming every route
 * whose target or runner is missing, and every plugin whose options are wrong.
 */
export async function buildGateway(config: HookpilotConfig, composition: Composition, options: BuildOptions = {}): Promise<Gateway> {
  return gatewayOf(await composeRuntime(config, composition, options))
}

/** The {@link Gateway} over a started runtime: its adapters, `listen` and `close`. */
function gatewayOf(runtime: Runtime): Gateway {
  const { config, log, clock, routes, state, runner, flow, budget, lifecycle, subscriptions, scope } = runtime
  const extra = config.platforms.webhook.extra
  let listening: GatewayServer | undefined
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
    log.info(`[webhook] Listening on ${address.host}:${address.port} — routes: ${names.length ? names.join(', ') : '(none configured)'} — state: ${kept} — runner: ${runner.name}`)
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
    runtime.stopAccepting()
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
