/**
 * The node:http adapter (and Express/Connect middleware): reads the body under the size cap while it streams
 * (a chunked body or a lying Content-Length is cut at the cap, never buffered whole), takes a raw body a
 * framework already read (`express.raw()`), and writes the flow's answer.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { PASS, type BodyRead, type FlowRequest, type FlowResult } from './flow.js'
import { ERRORS, type GatewayResponse } from './http-response.js'
import { throttledWarn } from './log-throttle.js'
import type { Logger } from './types.js'

/** A node `(req, res)` handler that also works as Express/Connect middleware. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void

/** How long, and how many bytes, the rest of an oversized body is read and dropped after the 413. */
const DRAIN = { ms: 1_000, bytes: 8 * 1024 * 1024 }

/** Creates the handler. Paths that are not the gateway's call `next()` when given, else answer 404. */
export function createNodeHandler(flow: (req: FlowRequest) => Promise<FlowResult>, log: Logger): NodeHandler {
  // A client that hangs up mid-upload is not an error of ours, and anyone can do it a thousand times a second.
  const gone = throttledWarn(log, Date.now)
  return (req, res, next) => {
    const request: FlowRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: flatten(req.headers),
      localAddress: req.socket.localAddress,
      readBody: (limit) => readBody(req, limit),
    }
    flow(request).then(
      (result) => {
        if (result === PASS) return next ? next() : send(res, ERRORS.notFound)
        if (result.status === 413) return refuseBody(req, res, result)
        send(res, result, req.method === 'HEAD')
      },
      (err: unknown) => {
        if (err instanceof ClientGone) gone('client-gone', 'request abandoned by the client before its body ended', {})
        else log.error('request failed', { reason: err instanceof Error ? err.message : String(err) })
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
 * Reads the body, or `too-large` as soon as it passes `limit` (and stops reading). A body a framework already
 * read is taken as it is when it is raw bytes, and reported when it was parsed into something else.
 */
function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const framework = (req as IncomingMessage & { body?: unknown }).body
  if (framework instanceof Uint8Array) {
    return Promise.resolve(framework.byteLength > limit ? { kind: 'too-large' } : { kind: 'ok', body: framework })
  }
  if (framework !== undefined && req.readableEnded) return Promise.resolve({ kind: 'parsed-already' })
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        resolve({ kind: 'too-large' })
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resolve({ kind: 'ok', body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) })
    }
    const onError = (err: Error) => {
      cleanup()
      reject(new ClientGone(err.message))
    }
    const onAborted = () => onError(new Error('client closed the connection before sending the whole body'))
    const cleanup = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted)
    }
    req.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onAborted)
  })
}

/**
 * 413, then the rest of the body is read and dropped for a short, bounded while before the connection closes,
 * as nginx and Go do: a client still writing would otherwise see a reset instead of the status.
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
