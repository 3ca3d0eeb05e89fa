/**
 * One request through the gateway, whatever carried it: node:http (and Express), a web-standard `fetch`
 * handler (Hono, Bun, Deno), or `gateway.handle()`. Each adapter only says how to read the body under the cap
 * and how to write the answer; everything the request table decides happens here, once.
 */
import { degraded, ERRORS, HEALTH, notReady, READY, type GatewayResponse } from './http-response.js'
import type { GatewayEvents } from './events.js'
import type { Readiness } from './jobs.js'
import type { Pipeline, RouteTable } from './pipeline.js'
import type { Endpoint } from './plugin.js'
import type { Logger, Route } from './types.js'

/** The body as an adapter read it. */
export type BodyRead =
  | { readonly kind: 'ok'; readonly body: Uint8Array }
  /** It passed the cap (reading stopped there). */
  | { readonly kind: 'too-large' }
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
  /** Reads the body, stopping as soon as it passes `limit` bytes. Rejects when the client went away. */
  readBody(limit: number): Promise<BodyRead>
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
  readonly log: Logger
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

/** Builds the flow. */
export function createFlow(parts: FlowParts): (req: FlowRequest) => Promise<FlowResult> {
  const { routes, pipeline, maxBodyBytes, log } = parts

  async function health(): Promise<GatewayResponse> {
    const ready = await parts.readiness()
    return ready.ok ? HEALTH : degraded(ready.reason)
  }

  async function ready(): Promise<GatewayResponse> {
    if (parts.closing()) return notReady('shutting down')
    const state = await parts.readiness()
    if (!state.ok) return notReady(state.reason)
    return (await parts.queueFull()) ? notReady('the queue is full (agent.max_queue)') : READY
  }

  const endpoints = new Map(parts.endpoints.map((e) => [e.path, e]))

  return async function flow(req) {
    const path = stripQuery(req.path)
    const probe = req.method === 'GET' || req.method === 'HEAD'
    if (path === '/health') return probe ? health() : ERRORS.probeMethod
    if (path === '/ready') return probe ? ready() : ERRORS.probeMethod
    const endpoint = endpoints.get(path)
    if (endpoint) return probe ? endpoint.handle(req) : ERRORS.probeMethod
    if (!path.startsWith(WEBHOOK_PREFIX)) return PASS
    const name = path.slice(WEBHOOK_PREFIX.length).replace(/\/$/, '')
    const route = name.includes('/') ? undefined : routes.get(name)
    // Counted by the configured name only: a sender's made-up route is one label, never a new one per name.
    const answer = await webhook(req, route)
    parts.events.emit('request', { route: route?.name, status: answer.status })
    return answer
  }

  async function webhook(req: FlowRequest, route: Route | undefined): Promise<GatewayResponse> {
    if (!route) return ERRORS.unknownRoute
    if (req.method !== 'POST') return ERRORS.webhookMethod
    if (parts.closing()) return ERRORS.shuttingDown
    if (Number(req.headers['content-length']) > maxBodyBytes) return ERRORS.tooLarge
    const read = await req.readBody(maxBodyBytes)
    if (read.kind === 'too-large') return ERRORS.tooLarge
    if (read.kind === 'parsed-already') {
      log.error('webhook body already parsed by another middleware: mount the hookpilot handler before express.json()', { route: route.name })
      return ERRORS.bodyAlreadyParsed
    }
    return pipeline(route, { method: 'POST', path: req.path, headers: req.headers, body: read.body, localAddress: req.localAddress })
  }
}

function stripQuery(path: string): string {
  const q = path.indexOf('?')
  return q === -1 ? path : path.slice(0, q)
}
