/**
 * One webhook request through the checks of the request table, transport-free. `preflight` needs only the
 * method and path (what the HTTP adapter knows before reading a byte of body); `process` takes the body.
 */
import { ERRORS, HEALTH, json, rateLimited, type GatewayResponse } from './http-response.js'
import { eventType, parsePayload } from './parse-body.js'
import { throttledWarn } from './log-throttle.js'
import { INSECURE_NO_AUTH } from './routes.js'
import type { DedupStore, JobQueue, NewJob, Reservation } from './jobs.js'
import type { Clock, EventFilter, Logger, RawRequest, RateLimiter, Route, Verifier, WebhookEvent } from './types.js'

/** De-duplication window of the seed: one hour (after the job finished). */
export const IDEMPOTENCY_TTL_MS = 60 * 60 * 1000

/** Looks routes up by name (static ones, then dynamic subscriptions). */
export interface RouteTable {
  get(name: string): Route | undefined
  list(): readonly Route[]
}

/** What the pipeline is composed of. */
export interface PipelineParts {
  readonly routes: RouteTable
  readonly verifiers: readonly Verifier[]
  readonly filters: readonly EventFilter[]
  readonly dedup: DedupStore
  readonly limiter: RateLimiter
  readonly queue: JobQueue
  readonly log: Logger
  readonly clock: Clock
  /** Aborted when the gateway closes; filters receive it. */
  readonly signal: AbortSignal
  /**
   * True while the gateway listens on an address other machines can reach. Routes were checked against the
   * configured host, but `listen({ host })` may bind another, and a dynamic route can arrive after that.
   */
  readonly exposed: () => boolean
}

/** Where a request goes before its body is read. */
export type Preflight =
  | { readonly kind: 'respond'; readonly response: GatewayResponse }
  | { readonly kind: 'webhook'; readonly route: Route }
  | { readonly kind: 'pass' }

const WEBHOOK_PREFIX = '/webhooks/'

/** The request table, step by step. */
export interface Pipeline {
  /**
   * Steps that need no body: health, unknown paths, unknown routes, wrong methods. `pass` means the path is
   * not the gateway's (an Express app may handle it).
   */
  preflight(method: string, path: string): Preflight
  /** Steps 3 to 8 for a webhook whose body was read within the size cap. */
  process(route: Route, req: RawRequest): Promise<GatewayResponse>
}

/** Builds the pipeline from its parts. */
export function createPipeline(parts: PipelineParts): Pipeline {
  const { routes, verifiers, filters, dedup, limiter, queue, log, clock, signal, exposed } = parts

  function preflight(method: string, rawPath: string): Preflight {
    const path = stripQuery(rawPath)
    if (path === '/health') {
      return { kind: 'respond', response: method === 'GET' || method === 'HEAD' ? HEALTH : ERRORS.healthMethod }
    }
    if (!path.startsWith(WEBHOOK_PREFIX)) return { kind: 'pass' }
    const name = path.slice(WEBHOOK_PREFIX.length).replace(/\/$/, '')
    const route = name.includes('/') ? undefined : routes.get(name)
    if (!route) return { kind: 'respond', response: ERRORS.unknownRoute }
    if (method !== 'POST') return { kind: 'respond', response: ERRORS.webhookMethod }
    return { kind: 'webhook', route }
  }

  const rejected = throttledWarn(log, clock)
  /** Only the route and a fixed reason: nothing the unauthenticated sender wrote. */
  const reject = (route: Route, message: string, reason?: string): false => {
    rejected(`${route.name}\u0000${message}\u0000${reason ?? ''}`, message, { route: route.name, reason })
    return false
  }

  async function verify(route: Route, req: RawRequest): Promise<boolean> {
    if (route.secrets.includes(INSECURE_NO_AUTH)) {
      return exposed() ? reject(route, 'rejected request: INSECURE_NO_AUTH is refused off loopback') : true
    }
    const verifier = verifiers.find((v) => req.headers[v.header] !== undefined)
    if (!verifier) return reject(route, 'rejected request: no signature header')
    const result = await verifier.verify(req, route.secrets)
    return result.ok || reject(route, 'rejected request: invalid signature', result.reason)
  }

  async function accepts(event: WebhookEvent, route: Route): Promise<boolean> {
    if (route.events.length > 0 && !route.events.includes(event.type)) return false
    for (const filter of filters) {
      if (!(await filter.accepts(event, { route, log, signal }))) return false
    }
    return true
  }

  async function process(route: Route, req: RawRequest): Promise<GatewayResponse> {
    if (!(await verify(route, req))) return ERRORS.invalidSignature
    const parsed = parsePayload(req.body, req.headers['content-type'])
    if (!parsed) return ERRORS.cannotParse
    const { payload } = parsed

    const type = eventType(req.headers, payload)
    const headerId = req.headers['x-github-delivery'] || req.headers['x-request-id'] || undefined
    const deliveryId = headerId ?? String(clock())
    const event: WebhookEvent = { route: route.name, type, deliveryId, payload, receivedAt: clock() }
    const fields = { route: route.name, delivery: deliveryId, event: type }

    if (!(await accepts(event, route))) {
      log.debug('ignored event', fields)
      return json(200, { status: 'ignored', event: type })
    }

    // A timestamp id is never de-duplicated: without an id header, retries cannot be told apart.
    const dedupKey = headerId === undefined ? undefined : `${route.name}\u0000${headerId}`
    const job: NewJob = { route: route.name, event: type, deliveryId, dedupKey, payload, payloadJson: parsed.json, receivedAt: event.receivedAt }
    try {
      return await admit(route, job, fields)
    } catch (err) {
      // Never a 202 for an event that is not stored: the sender keeps it and may send it again.
      log.error('cannot store the event: answered 503', { ...fields, reason: err instanceof Error ? err.message : String(err) })
      return ERRORS.storeUnavailable
    }
  }

  /** Steps 6 to 8: de-dup, rate limit, store. The key stays reserved until the job is stored or refused. */
  async function admit(route: Route, job: NewJob, fields: Readonly<Record<string, string>>): Promise<GatewayResponse> {
    const reservation: Reservation | undefined = job.dedupKey === undefined ? undefined : await dedup.reserve(job.dedupKey, IDEMPOTENCY_TTL_MS)
    const duplicate = () => {
      log.info('duplicate delivery', fields)
      return json(200, { status: 'duplicate', delivery_id: job.deliveryId })
    }
    if (reservation?.status === 'duplicate') return duplicate()
    const release = () => reservation?.release()
    try {
      const decision = await limiter.hit(route.name, route.rateLimit)
      if (!decision.ok) {
        release()
        log.warn('rate limit exceeded', { ...fields, retry_after: decision.retryAfterSeconds })
        return rateLimited(decision.retryAfterSeconds)
      }
      const added = await queue.add(job, reservation)
      if (added.status === 'duplicate') return duplicate()
      if (added.status === 'full') {
        log.error('queue full: event refused', fields)
        return ERRORS.queueFull
      }
      if (reservation?.status === 'redeliver') log.info('redelivery of a failed job: queued again', { ...fields, job: added.id })
      else log.info('accepted', { ...fields, job: added.id })
      return json(202, { status: 'accepted', route: route.name, event: job.event, delivery_id: job.deliveryId })
    } finally {
      release() // after add() a second release does nothing; after a throw it gives the key back
    }
  }

  return { preflight, process }
}

function stripQuery(path: string): string {
  const q = path.indexOf('?')
  return q === -1 ? path : path.slice(0, q)
}
