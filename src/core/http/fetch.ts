/**
 * The web-standard adapter: `gateway.fetch(request)` answers a `Request` with a `Response`, so the gateway runs
 * under any fetch-style server (Hono, Bun, Deno, a service worker). The body is read from the stream under
 * the size cap, as the node adapter does.
 */
import type { BodyLease } from './body-budget.js'
import { PASS, type BodyRead, type FlowRequest, type FlowResult } from './flow.js'
import { ERRORS } from './responses.js'
import { readBounded } from '../../util/read-bounded.js'

/** What the server knows about the connection, when it can tell (Bun's `server.requestIP`, Hono's `getConnInfo`). */
export interface FetchInfo {
  /** The local address the request arrived on. Without it, `INSECURE_NO_AUTH` routes are refused. */
  readonly localAddress?: string | undefined
  /** The client's address (the connection's peer), for the log; `trust_proxy` may replace it with X-Forwarded-For's. */
  readonly remoteAddress?: string | undefined
}

/** A fetch handler: `Request` in, `Response` out. Paths that are not the gateway's answer 404. */
export type FetchHandler = (request: Request, info?: FetchInfo) => Promise<Response>

/** Creates the handler. */
export function createFetchHandler(flow: (req: FlowRequest) => Promise<FlowResult>): FetchHandler {
  return async (request, info) => {
    const url = new URL(request.url)
    const headers = Object.create(null) as Record<string, string> // names come from the network
    request.headers.forEach((value, name) => (headers[name] = value)) // names come lower-cased
    const result = await flow({
      method: request.method,
      path: url.pathname + url.search,
      headers,
      // Without a socket's address the request counts as coming from the network.
      localAddress: info?.localAddress ?? '',
      remoteAddress: info?.remoteAddress,
      readBody: (limit, lease) => readStream(request.body, limit, lease),
    })
    const response = result === PASS ? ERRORS.notFound : result
    return new Response(request.method === 'HEAD' ? null : response.body, { status: response.status, headers: response.headers })
  }
}

async function readStream(body: ReadableStream<Uint8Array> | null, limit: number, lease: BodyLease): Promise<BodyRead> {
  const read = await readBounded(body, (size, chunk) => (size > limit ? 'too-large' : lease.take(chunk.byteLength) ? undefined : 'over-budget'))
  return read.ok ? { kind: 'ok', body: read.bytes } : { kind: read.refused }
}
