/**
 * The node:http adapter: routes before reading, reads the body under the size cap while it streams (a chunked
 * body or a lying Content-Length is cut at the cap, never buffered whole), then hands it to the pipeline.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { ERRORS, type GatewayResponse } from './http-response.js'
import type { Pipeline } from './pipeline.js'
import type { Logger, RawRequest } from './types.js'

/** A node `(req, res)` handler that also works as Express/Connect middleware. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void

/** What the adapter needs besides the pipeline. */
export interface HandlerOptions {
  readonly maxBodyBytes: number
  readonly log: Logger
  /** True once the gateway is closing: new webhooks are refused with 503. */
  readonly closing: () => boolean
}

/** Creates the handler. Paths that are not the gateway's call `next()` when given, else answer 404. */
export function createNodeHandler(pipeline: Pipeline, options: HandlerOptions): NodeHandler {
  const { maxBodyBytes, log } = options
  return (req, res, next) => {
    const step = pipeline.preflight(req.method ?? 'GET', req.url ?? '/')
    if (step.kind === 'pass') return next ? next() : send(res, ERRORS.notFound)
    if (step.kind === 'respond') return send(res, step.response, req.method === 'HEAD')
    if (options.closing()) return send(res, ERRORS.shuttingDown)
    const declared = Number(req.headers['content-length'])
    if (declared > maxBodyBytes) return refuseBody(req, res)
    readBody(req, maxBodyBytes).then(
      (body) => {
        if (body === undefined) return refuseBody(req, res)
        const raw: RawRequest = { method: 'POST', path: req.url ?? '/', headers: flatten(req.headers), body }
        return pipeline.process(step.route, raw).then((response) => send(res, response))
      },
    ).catch((err: unknown) => {
      log.error('request failed', { route: step.route.name, reason: err instanceof Error ? err.message : String(err) })
      if (!res.headersSent) send(res, ERRORS.internal)
    })
  }
}

/** Writes a transport-free answer to a node response. */
export function send(res: ServerResponse, response: GatewayResponse, headOnly = false): void {
  res.writeHead(response.status, response.headers)
  res.end(headOnly ? undefined : response.body)
}

/**
 * Reads the body, or resolves undefined as soon as it passes `limit` (and stops reading). Rejects when the
 * client goes away mid-body.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        resolve(undefined)
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    }
    const onError = (err: Error) => {
      cleanup()
      reject(err)
    }
    const onAborted = () => onError(new Error('client closed the connection before sending the whole body'))
    const cleanup = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted)
    }
    req.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onAborted)
  })
}

/** 413, then the connection is closed so the rest of an oversized body is never read. */
function refuseBody(req: IncomingMessage, res: ServerResponse): void {
  req.pause()
  res.once('finish', () => req.socket.destroySoon())
  send(res, ERRORS.tooLarge)
}

/** Node joins repeated headers into one string, except `set-cookie`: only then is a copy needed. */
function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  if (headers['set-cookie'] === undefined) return headers as Record<string, string>
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}
