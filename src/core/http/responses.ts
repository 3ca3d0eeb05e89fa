/**
 * The answers of the request table (docs/requests.md), built once where they never change: the hot paths
 * (forgeries, unknown routes) should not allocate.
 */

/** An HTTP answer, transport-free. */
export interface GatewayResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const

/** A JSON answer, its length computed once here rather than on every write. */
export function json(status: number, body: object, headers: Readonly<Record<string, string>> = {}): GatewayResponse {
  const text = JSON.stringify(body)
  return { status, headers: { ...JSON_HEADERS, ...headers, 'content-length': String(Buffer.byteLength(text)) }, body: text }
}

function frozen(status: number, error: string, headers: Readonly<Record<string, string>> = {}): GatewayResponse {
  return Object.freeze(json(status, { error }, headers))
}

/** The fixed error answers. */
export const ERRORS = {
  notFound: frozen(404, 'Not found'),
  unknownRoute: frozen(404, 'Unknown route'),
  tooLarge: frozen(413, 'Payload too large', { connection: 'close' }),
  /** Past `max_unverified_bytes` or `max_connections`: the client may come back shortly. */
  busy: frozen(503, 'Server busy', { 'retry-after': '5', connection: 'close' }),
  /** Node's own answers to malformed HTTP and slow clients (clientError), as JSON like every other error. */
  badRequest: frozen(400, 'Bad request', { connection: 'close' }),
  requestTimeout: frozen(408, 'Request timeout', { connection: 'close' }),
  headersTooLarge: frozen(431, 'Request header fields too large', { connection: 'close' }),
  invalidSignature: frozen(401, 'Invalid signature'),
  cannotParse: frozen(400, 'Cannot parse body'),
  /** An `INSECURE_NO_AUTH` route's request that a browser sent (an `Origin`, or a `Sec-Fetch-Site` other than `none`). */
  fromABrowser: frozen(403, 'INSECURE_NO_AUTH route: refused a request sent by a browser (Origin or Sec-Fetch-Site header); a web page must not run an unauthenticated route'),
  /** An `INSECURE_NO_AUTH` route's body of a type a page can send across sites without a preflight. */
  notJson: frozen(415, 'INSECURE_NO_AUTH route: only Content-Type application/json is accepted'),
  webhookMethod: frozen(405, 'Method not allowed', { allow: 'POST' }),
  probeMethod: frozen(405, 'Method not allowed', { allow: 'GET, HEAD' }),
  shuttingDown: frozen(503, 'Shutting down', { 'retry-after': '30', connection: 'close' }),
  queueFull: frozen(503, 'Queue full', { 'retry-after': '30' }),
  storeUnavailable: frozen(503, 'State store unavailable', { 'retry-after': '10' }),
  internal: frozen(500, 'Internal error'),
  bodyAlreadyParsed: frozen(500, 'The request body was already parsed by another middleware: mount the hookpilot handler before express.json() (or give it the raw body with express.raw())'),
} as const

/** `GET /health` while every part can work. */
export const HEALTH = Object.freeze(json(200, { status: 'ok', platform: 'webhook' }))

/** `GET /health` while a part cannot work: still 200 (the process is alive; restarting it would not help). */
export function degraded(reason: string): GatewayResponse {
  return json(200, { status: 'degraded', platform: 'webhook', reason })
}

/** `GET /ready` when the gateway can take work. */
export const READY = Object.freeze(json(200, { status: 'ready' }))

/** `GET /ready` when it cannot: a load balancer stops sending until it can. */
export function notReady(reason: string): GatewayResponse {
  return json(503, { status: 'unavailable', reason }, { 'retry-after': '5' })
}

/**
 * 202 for a verified event over its route's rate limit (`over_limit: defer`): stored, and run at `runAt` (the
 * moment the limit allows). A 2xx, so a sender that disables hooks answered 4xx (GitLab) keeps the hook on.
 */
export function deferred(route: string, job: { readonly event: string; readonly deliveryId: string }, runAt: number): GatewayResponse {
  return json(202, { status: 'deferred', route, event: job.event, delivery_id: job.deliveryId, run_at: new Date(runAt).toISOString() })
}

/** 429 with the seconds until the window frees a slot. */
export function rateLimited(retryAfterSeconds: number): GatewayResponse {
  return json(429, { error: 'Rate limit exceeded' }, { 'retry-after': String(retryAfterSeconds) })
}
