/**
 * The node:http server `gateway.listen()` starts, set for a public port: headers and whole requests within
 * their timeouts (checked every second, not node's 30 s default), node's own errors answered as JSON, and the
 * connections past `max_connections` marked so their webhooks are answered 503 while probes still are. Before
 * that, the connection guard closes silent connections and those past one client's share.
 */
import { createServer, type Server } from 'node:http'
import type { ClientErrorListener } from './client-error.js'
import { connectionGuard, type ConnectionGuardOptions } from './connection-guard.js'
import type { NodeConnections, NodeHandler } from './node.js'

/**
 * Connections node itself accepts past `max_connections`, so that /health and /ready stay answered (and
 * webhooks get their 503) while the cap is reached; past these too, node closes new connections unanswered.
 */
export const PROBE_HEADROOM = 64

/** What the server is set to. */
export interface ServerLimits {
  readonly headersTimeoutMs: number
  readonly requestTimeoutMs: number
  readonly maxConnections: number
  /** The connection guard's settings: one client's share, the wait for a first byte. */
  readonly guard: ConnectionGuardOptions
}

/** A server and how many connections it has open. */
export interface GatewayServer {
  readonly server: Server
  connections(): number
}

/** Creates the server (not yet listening). */
export function createGatewayServer(handler: NodeHandler, clientError: ClientErrorListener, tracked: NodeConnections, limits: ServerLimits): GatewayServer {
  const server = createServer({ connectionsCheckingInterval: 1000 }, handler)
  server.headersTimeout = limits.headersTimeoutMs
  server.requestTimeout = limits.requestTimeoutMs
  server.maxConnections = limits.maxConnections + PROBE_HEADROOM
  const guard = connectionGuard(limits.guard)
  let open = 0
  server.on('connection', (socket) => {
    if (!guard.admit(socket)) return
    // Marked when opened: the connections past the cap get 503, not every connection while it is reached.
    if (open >= limits.maxConnections) tracked.overflow.add(socket)
    open++
    socket.once('close', () => open--)
  })
  server.on('clientError', clientError)
  return { server, connections: () => open }
}
