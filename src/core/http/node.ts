/**
 * The node:http adapter (and Express/Connect middleware): reads the body under the size cap and the budget of
 * unverified bytes while it streams (a chunked body or a lying Content-Length is cut at the cap, never
 * buffered whole), takes a raw body a framework already read (`express.raw()`), and writes the flow's answer.
 * With the server `listen()` makes, it also answers node's own client errors (client-error.ts).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { BodyLease } from './body-budget.js'
import { messageOf } from '../errors.js'
import { PASS, type BodyRead, type FlowRequest, type FlowResult } from './flow.js'
import { ERRORS, type GatewayResponse } from './responses.js'
import { throttledLog, throttledWarn } from '../log/throttle.js'
import type { Clock, Logger } from '../types.js'

/** A node `(req, res)` handler that also works as Express/Connect middleware. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void

/** How long, and how many bytes, the rest of a refused body is read and dropped after the answer. */
const DRAIN = { ms: 1_000, bytes: 8 * 1024 * 1024 }

/** What the node adapter shares with the client-error handler of the same server. */
export interface NodeConnections {
  /** The response a socket's current request will get, while it is being prepared. */
  readonly inFlight: WeakMap<Socket, ServerResponse>
  /** Sockets on which malformed HTTP followed a request: that request is not taken. */
  readonly poisoned: WeakSet<Socket>
  /** Sockets opened past `max_connections` (the server marks them). */
  readonly overflow: WeakSet<Socket>
}

/** Creates the handler. Paths that are not the gateway's call `next()` when given, else answer 404. */
export function createNodeHandler(
  flow: (req: FlowRequest) => Promise<FlowResult>,
  log: Logger,
  clock: Clock = Date.now,
  connections: NodeConnections = { inFlight: new WeakMap(), poisoned: new WeakSet(), overflow: new WeakSet() },
): NodeHandler {
  // A client that hangs up mid-upload is not an error of ours, and anyone can do it a thousand times a second.
  const gone = throttledWarn(log, clock)
  const failed = throttledLog(log, clock, { level: 'error' })
  return (req, res, next) => {
    const socket = req.socket
    connections.inFlight.set(socket, res)
    res.once('close', () => {
      if (connections.inFlight.get(socket) === res) connections.inFlight.delete(socket)
    })
    const request: FlowRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: flatten(req.headers),
      localAddress: socket.localAddress,
      remoteAddress: socket.remoteAddress,
      overCapacity: connections.overflow.has(socket),
      readBody: (limit, lease) => readBody(req, limit, lease, connections.poisoned),
    }
    flow(request).then(
      (result) => {
        if (result === PASS) return next ? next() : send(res, ERRORS.notFound)
        if (result.headers['connection'] === 'close' && !req.complete) return refuseBody(req, res, result)
        send(res, result, req.method === 'HEAD')
      },
      (err: unknown) => {
        if (err instanceof ClientGone) gone('client-gone', 'request abandoned by the client before its body ended', {})
        else failed('request-failed', 'request failed', { reason: messageOf(err) })
        if (!res.headersSent && !res.destroyed) send(res, ERRORS.internal)
      },
    )
  }
}

/** Writes a transport-free answer to a node response. */
export function send(res: ServerResponse, response: GatewayResponse, headOnly = false): void {
  res.writeHead(response.status, response.headers)
  res.end(headOnly ? undefined : response.body)
}

class ClientGone extends Error {}

/**
 * Reads the body, or `too-large` as soon as it passes `limit`, or `over-budget` as soon as the budget cannot
 * take a chunk (and stops reading either way). A body a framework already read is taken as it is when it is
 * raw bytes, and reported when it was parsed into something else.
 */
function readBody(req: IncomingMessage, limit: number, lease: BodyLease, poisoned: WeakSet<Socket>): Promise<BodyRead> {
  const framework = (req as IncomingMessage & { body?: unknown }).body
  if (framework instanceof Uint8Array) {
    return Promise.resolve(framework.byteLength > limit ? { kind: 'too-large' } : { kind: 'ok', body: framework })
  }
  if (framework !== undefined && req.readableEnded) return Promise.resolve({ kind: 'parsed-already' })
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = (read: BodyRead) => {
      cleanup()
      resolve(read)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) return stop({ kind: 'too-large' })
      if (!lease.take(chunk.length)) return stop({ kind: 'over-budget' })
      chunks.push(chunk)
    }
    const onEnd = () => {
      // The parser reports garbage after a body (a client error) before 'end' is emitted.
      if (poisoned.has(req.socket)) return stop({ kind: 'malformed' })
      stop({ kind: 'ok', body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) })
    }
    const onError = (err: Error) => {
      cleanup()
      reject(new ClientGone(err.message))
    }
    const onAborted = () => onError(new Error('client closed the connection before sending the whole body'))
    const cleanup = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted).off('close', onAborted)
    }
    // 'close' too: however the request ends without its 'end', the read must end (and give its budget back).
    req.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onAborted).on('close', onAborted)
  })
}

/**
 * The answer, then the rest of the body is read and dropped for a short, bounded while before the connection
 * closes, as nginx and Go do: a client still writing would otherwise see a reset instead of the status.
 */
function refuseBody(req: IncomingMessage, res: ServerResponse, response: GatewayResponse): void {
  let dropped = 0
  const close = () => {
    clearTimeout(timer)
    req.off('data', onData)
    req.socket.destroySoon()
  }
  const onData = (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped > DRAIN.bytes) close()
  }
  const timer = setTimeout(close, DRAIN.ms).unref()
  req.on('data', onData).once('end', close)
  req.resume()
  send(res, response)
}

/** Node joins repeated headers into one string, except `set-cookie`: only then is a copy needed. */
function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  if (headers['set-cookie'] === undefined) return headers as Record<string, string>
  const out = Object.create(null) as Record<string, string> // header names come from the network
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}
