/**
 * Node's own answers (its `clientError`): malformed HTTP, headers too large, a request that did not arrive in
 * time. By default node writes a bare `400 Bad Request` with no body; here they are JSON like every other
 * error, logged throttled (anyone can send garbage), and never written over a request in flight: a signed
 * body followed by junk on the same connection used to be accepted (202, the job stored) while the client saw
 * node's 400. Now that request is refused (400) unless it was already being processed, in which case its own
 * answer goes out and the connection closes after it.
 */
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { NodeConnections } from './node.js'
import { ERRORS, type GatewayResponse } from './responses.js'
import { throttledWarn } from '../log/throttle.js'
import type { Clock, Logger } from '../types.js'

/** A `server.on('clientError', ...)` listener. */
export type ClientErrorListener = (err: NodeJS.ErrnoException, socket: Socket) => void

/** Creates the listener for a server whose requests `connections` tracks (see createNodeHandler). */
export function clientErrorListener(connections: NodeConnections, log: Logger, clock: Clock): ClientErrorListener {
  const noted = throttledWarn(log, clock)
  return (err, socket) => {
    // The client leaving (a reset, or its end in the middle of a request) is not an error: nothing to answer,
    // nothing to log here (an abandoned upload is logged by the adapter, throttled).
    if (err.code === 'ECONNRESET' || err.code === 'HPE_INVALID_EOF_STATE' || !socket.writable) return void socket.destroy()
    const response = answerFor(err.code)
    // The code only: node's messages are fixed, but its error carries the raw bytes (rawPacket).
    noted(`client-error\u0000${response.status}`, `client error: answered ${response.status}`, { code: err.code, client: socket.remoteAddress })
    const res = connections.inFlight.get(socket)
    if (res === undefined) return void socket.end(raw(response))
    if (!res.headersSent) {
      connections.poisoned.add(socket)
      // Still reading that request's body (a timeout, garbage inside a chunked body): answer now, on the socket
      // itself (ending the response would discard the request, whose read then never ends), and close; the
      // read is aborted with the connection. Otherwise its own answer follows (400 if its body was not taken).
      if (!res.req.complete) {
        socket.write(raw(response))
        return void socket.destroySoon()
      }
    }
    // Then the connection closes, once that answer is out (destroySoon flushes first).
    if (res.writableFinished) socket.destroySoon()
    else res.once('finish', () => socket.destroySoon())
  }
}

function answerFor(code: string | undefined): GatewayResponse {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return ERRORS.requestTimeout
  if (code === 'HPE_HEADER_OVERFLOW') return ERRORS.headersTooLarge
  return ERRORS.badRequest
}

/** The answer as bytes on the socket: no response object exists before a request was parsed. */
function raw(response: GatewayResponse): string {
  const head = Object.entries(response.headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  return `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}\r\n${head}\r\n${response.body}`
}
