/**
 * One request through the gateway, whatever carried it: node:http (and Express), a web-standard `fetch`
 * handler (Hono, Bun, Deno), or `gateway.handle()`. Each adapter only says how to read the body under the cap
 * and how to write the answer; everything the request table decides happens here, once.
 */
import type { BodyBudget, BodyLease } from './body-budget.js'
import type { ClientAddress } from './client-address.js'
import { deferred, degraded, ERRORS, HEALTH, json, notReady, rateLimited, READY, type GatewayResponse } from './responses.js'
import { messageOf } from '../errors.js'
import type { GatewayEvents } from '../events.js'
import type { Readiness } from '../jobs/lifecycle/state-backend.js'
import { throttledLog, throttledWarn } from '../log/throttle.js'
import type { Admission } from '../pipeline/admit.js'
import type { Pipeline, PipelineResult, Rejection } from '../pipeline/pipeline.js'
import type { Endpoint } from './endpoint.js'
import type { RouteTable } from '../routes/route-table.js'
import type { Clock, Logger, Route } from '../types.js'
import { withDeadline } from '../../util/deadline.js'

/** The body as an adapter read it. */
export type BodyRead =
  | { readonly kind: 'ok'; readonly body: Uint8Array }
  /** It passed the cap (reading stopped there). */
  | { readonly kind: 'too-large' }
  /** It would have passed the budget of unverified bytes (reading stopped there). */
  | { readonly kind: 'over-budget' }
  /** Malformed HTTP followed it on the connection (pipelining garbage): it is not taken. */
  | { readonly kind: 'malformed' }
  /** A framework's body parser consumed it and left an object: the raw bytes the signature covers are gone. */
  | { readonly kind: 'parsed-already' }

/** A request as an adapter hands it to the flow. */
export interface FlowRequest {
  readonly method: string
  /** The path, with its query string if any. */
  readonly path: string
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>
  /** The local address of the socket it arrived on; undefined when no socket carried it. */
  readonly localAddress?: string | undefined
  /** The peer's address of that socket; undefined when no socket carried it. */
  readonly remoteAddress?: string | undefined
  /** The connection was opened past `max_connections`: a webhook on it is answered 503 (a probe still is answered). */
  readonly overCapacity?: boolean | undefined
  /**
   * Reads the body, stopping as soon as it passes `limit` bytes or `lease` cannot take the next chunk.
   * Rejects when the client went away.
   */
  readBody(limit: number, lease: BodyLease): Promise<BodyRead>
}

/** Not the gateway's path: an Express app's next handler (or a 404) takes it. */
export const PASS = Symbol('hookpilot.pass')

/** What the flow answers. */
export type FlowResult = GatewayResponse | typeof PASS

/** What the flow is composed of. */
export interface FlowParts {
  readonly routes: RouteTable
  readonly pipeline: Pipeline
  readonly maxBodyBytes: number
  /** The bytes all unverified bodies may hold at once. */
  readonly budget: BodyBudget
  readonly clientAddress: ClientAddress
  readonly log: Logger
  readonly clock: Clock
  /** True once the gateway is shutting down. */
  readonly closing: () => boolean
  /** Whether every started part can work (the state store first). */
  readonly readiness: () => Promise<Readiness>
  /** True when `agent.max_queue` jobs are waiting. */
  readonly queueFull: () => Promise<boolean>
  readonly events: GatewayEvents
  /** Paths plugins answer (`/metrics`). */
  readonly endpoints: readonly Endpoint[]
}

const WEBHOOK_PREFIX = '/webhooks/'

/**
 * How long `/health` and `/ready` wait for the state store: a probe is answered within a second whatever the
 * store does (a load balancer or supervisor that gets no answer counts a timeout, not a reason).
 */
const PROBE_DEADLINE_MS = 800
const probeExpired = () => new Error(`the state store did not answer within ${PROBE_DEADLINE_MS} ms`)

/** One request through the request table. */
export type Flow = (req: FlowRequest) => Promise<FlowResult>

/** Builds the flow. */
export function createFlow(parts: FlowParts): Flow {
  const { routes, pipeline, maxBodyBytes, budget, log } = parts
  // Nothing a sender wrote goes into these lines (not the route name it asked for): the client's address, the
  // route when it is ours, a fixed reason.
  const refused = throttledWarn(log, parts.clock)
  const unknown = throttledLog(log, parts.clock, { level: 'info' })
  const misuse = throttledLog(log, parts.clock, { level: 'error' })
  const storeFailed = throttledLog(log, parts.clock, { level: 'error' })

  /** Liveness: 200 while this process answers, `degraded` with the reason while a part cannot work. */
  async function health(): Promise<GatewayResponse> {
    const ready = await withDeadline(parts.readiness(), PROBE_DEADLINE_MS, probeExpired).catch((err: unknown) => ({ ok: false as const, reason: messageOf(err) }))
    return ready.ok ? HEALTH : degraded(ready.reason)
  }

  /** Why the gateway cannot take work now, or undefined when it can. */
  async function unready(): Promise<string | undefined> {
    const state = await parts.readiness()
    if (!state.ok) return state.reason
    // The store may go away between the two questions (Redis dropping): not ready, rather than an error.
    const full = await parts.queueFull().catch(() => undefined)
    if (full === undefined) return 'the state store cannot be read'
    return full ? 'the queue is full (agent.max_queue)' : undefined
  }

  async function ready(): Promise<GatewayResponse> {
    if (parts.closing()) return notReady('shutting down')
    const reason = await withDeadline(unready(), PROBE_DEADLINE_MS, probeExpired).catch((err: unknown) => messageOf(err))
    return reason === undefined ? READY : notReady(reason)
  }

  const busy = (key: string, message: string, fields: Record<string, string | number | undefined>): GatewayResponse => {
    refused(key, message, fields)
    return ERRORS.busy
  }
  const endpoints = new Map(parts.endpoints.map((e) => [e.path, e]))

  return async function flow(req) {
    const path = stripQuery(req.path)
    const probe = req.method === 'GET' || req.method === 'HEAD'
    if (path === '/health') return probe ? health() : ERRORS.probeMethod
    if (path === '/ready') return probe ? ready() : ERRORS.probeMethod
    const endpoint = endpoints.get(path)
    if (endpoint) {
      if (probe) return endpoint.handle({ method: req.method, headers: req.headers, clientAddress: parts.clientAddress(req.remoteAddress, req.headers) })
      return req.method === 'POST' && endpoint.formBytes !== undefined ? form(req, endpoint, endpoint.formBytes) : ERRORS.probeMethod
    }
    if (!path.startsWith(WEBHOOK_PREFIX)) return PASS
    const name = path.slice(WEBHOOK_PREFIX.length).replace(/\/$/, '')
    const route = name.includes('/') ? undefined : routes.get(name)
    // Counted by the configured name only: a sender's made-up route is one label, never a new one per name.
    const answer = await webhook(req, route)
    parts.events.emit('request', { route: route?.name, status: answer.status })
    return answer
  }

  async function webhook(req: FlowRequest, route: Route | undefined): Promise<GatewayResponse> {
    const client = parts.clientAddress(req.remoteAddress, req.headers)
    if (!route) {
      unknown('unknown-route', 'unknown route: answered 404', { client })
      return ERRORS.unknownRoute
    }
    if (req.method !== 'POST') return ERRORS.webhookMethod
    if (parts.closing()) return ERRORS.shuttingDown
    const fields = { route: route.name, client }
    if (req.overCapacity === true) return busy('connections', 'refused request: over max_connections, answered 503', fields)
    const declared = Number(req.headers['content-length'])
    if (declared > maxBodyBytes) return tooLarge(fields)
    const lease = budget.lease()
    try {
      if (declared > 0 && !lease.fits(declared)) return overBudget(fields)
      const read = await req.readBody(maxBodyBytes, lease)
      if (read.kind === 'too-large') return tooLarge(fields)
      if (read.kind === 'over-budget') return overBudget(fields)
      if (read.kind === 'malformed') {
        refused(`${route.name}\u0000malformed`, 'rejected request: malformed HTTP followed its body', fields)
        return ERRORS.badRequest
      }
      if (read.kind === 'parsed-already') {
        misuse('parsed-already', 'webhook body already parsed by another middleware: mount the hookpilot handler before express.json()', { route: route.name })
        return ERRORS.bodyAlreadyParsed
      }
      const result = await pipeline(route, {
        method: 'POST', path: req.path, headers: req.headers, body: read.body, localAddress: req.localAddress, clientAddress: client,
      })
      if (result.kind === 'admitted' && result.admission.kind === 'store_unavailable') {
        // Never a 202 for an event that is not stored: the sender keeps it and may send it again.
        // Throttled per route: a store that is down fails every request, and a line each is a flood (a full disk).
        storeFailed(`store\u0000${route.name}`, 'cannot store the event: answered 503', {
          route: route.name, delivery: result.deliveryId, event: result.event, client, reason: result.admission.reason,
        })
      }
      return answerOf(result)
    } finally {
      lease.release()
    }
  }

  /** A plugin's form (a login): its small body read under its cap and the budget, as a webhook's is. */
  async function form(req: FlowRequest, endpoint: Endpoint, limit: number): Promise<GatewayResponse> {
    if (parts.closing()) return ERRORS.shuttingDown
    const lease = budget.lease()
    try {
      const read = await req.readBody(limit, lease)
      if (read.kind === 'too-large') return ERRORS.tooLarge
      if (read.kind === 'over-budget') return ERRORS.busy
      if (read.kind !== 'ok') return ERRORS.badRequest
      return await endpoint.handle({ method: req.method, headers: req.headers, body: read.body, clientAddress: parts.clientAddress(req.remoteAddress, req.headers) })
    } finally {
      lease.release()
    }
  }

  function tooLarge(fields: { route: string; client: string | undefined }): GatewayResponse {
    refused(`${fields.route}\u0000too-large`, 'rejected request: body over max_body_bytes', { ...fields, max_body_bytes: maxBodyBytes })
    return ERRORS.tooLarge
  }

  function overBudget(fields: { route: string; client: string | undefined }): GatewayResponse {
    return busy('budget', 'refused request: unverified bodies would pass max_unverified_bytes, answered 503', { ...fields, held: budget.held() })
  }
}

/** The answer to each reason a webhook is rejected for. */
const REJECTIONS = {
  invalid_signature: ERRORS.invalidSignature,
  cannot_parse: ERRORS.cannotParse,
  from_a_browser: ERRORS.fromABrowser,
  not_json: ERRORS.notJson,
} as const satisfies Record<Rejection, GatewayResponse>

/**
 * The HTTP answer to what the pipeline decided: the one place a webhook's outcome becomes a status, headers
 * and a body (docs/requests.md's table).
 */
export function answerOf(result: PipelineResult): GatewayResponse {
  switch (result.kind) {
    case 'rejected':
      return REJECTIONS[result.reason]
    case 'ignored':
      return json(200, { status: 'ignored', event: result.event, reason: result.reason })
    case 'admitted':
      return admissionAnswer(result, result.admission)
  }
}

/** The answer to an admitted webhook (`job` names it in the body). */
function admissionAnswer(job: { readonly route: string; readonly event: string; readonly deliveryId: string }, admission: Admission): GatewayResponse {
  switch (admission.kind) {
    case 'accepted':
      return json(202, { status: 'accepted', route: job.route, event: job.event, delivery_id: job.deliveryId })
    case 'deferred':
      return deferred(job.route, job, admission.runAt)
    case 'duplicate':
      return json(200, { status: 'duplicate', delivery_id: job.deliveryId })
    case 'rate_limited':
      return rateLimited(admission.retryAfterSeconds)
    case 'queue_full':
      return ERRORS.queueFull
    case 'store_unavailable':
      return ERRORS.storeUnavailable
  }
}

function stripQuery(path: string): string {
  const q = path.indexOf('?')
  return q === -1 ? path : path.slice(0, q)
}
