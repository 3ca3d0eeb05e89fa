/**
 * Steps 3 to 10 of the request table for a webhook whose route is known and whose body was read within the
 * cap: verify, parse, filter, de-dup, rate limit, store. Transport-free: it answers a value
 * ({@link PipelineResult}), which the request flow (`http/flow.ts`) turns into the HTTP answer.
 */
import type { GatewayEvents } from '../events.js'
import type { DedupStore, JobQueue } from '../jobs/lifecycle/state-backend.js'
import type { NewJob } from '../jobs/lifecycle/job-record.js'
import { admitJob, type Admission } from './admit.js'
import { closesPullRequest } from './closing.js'
import { browserRefusal, type BrowserRefusal } from './browser-guard.js'
import { dedupKeyOf } from '../jobs/lifecycle/dedup-key.js'
import { checkedOrigin } from '../jobs/lifecycle/origin.js'
import { throttledWarn } from '../log/throttle.js'
import { parsePayload } from './parse-body.js'
import { INSECURE_NO_AUTH } from '../route-types.js'
import { isLoopback } from '../routes/routes.js'
import { groupOf, renderedKey } from '../routes/concurrency.js'
import type { CommandIntake } from '../policy/command-intake.js'
import type { Clock, EventFilter, JsonObject, Logger, RawRequest, RateLimiter, Route, Source, WebhookEvent } from '../types.js'

/** Headers a reverse proxy adds to what it forwards. */
const PROXY_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const

/** What the pipeline is composed of. */
export interface PipelineParts {
  readonly sources: readonly Source[]
  readonly filters: readonly EventFilter[]
  readonly dedup: DedupStore
  readonly limiter: RateLimiter
  readonly queue: JobQueue
  readonly log: Logger
  readonly clock: Clock
  /** Aborted when the gateway closes; filters receive it. */
  readonly signal: AbortSignal
  readonly events?: GatewayEvents | undefined
  /** Pull-request commands (a route's `policy.commands`): untrusted ones ignored, trusted ones acknowledged at once. */
  readonly commands?: CommandIntake | undefined
}

/**
 * Why a webhook was rejected before anything of it was read: its signature, a body that is not JSON, or (on an
 * `INSECURE_NO_AUTH` route) what only a browser page sends.
 */
export type Rejection = 'invalid_signature' | 'cannot_parse' | BrowserRefusal

/** What became of a webhook: verified and admitted (the admission says how), ignored by its route, or rejected. */
export type PipelineResult =
  /** Verified, parsed and taken by its route: `admission` says whether it was stored. */
  | { readonly kind: 'admitted'; readonly route: string; readonly event: string; readonly deliveryId: string; readonly admission: Admission }
  /** Verified, but its route does not take it (`reason`, in words: which rule). */
  | { readonly kind: 'ignored'; readonly event: string; readonly reason: string }
  | { readonly kind: 'rejected'; readonly reason: Rejection }

/** Runs a verified-or-not webhook through the checks. */
export type Pipeline = (route: Route, req: RawRequest) => Promise<PipelineResult>

const REJECTED = {
  invalidSignature: Object.freeze({ kind: 'rejected', reason: 'invalid_signature' }),
  cannotParse: Object.freeze({ kind: 'rejected', reason: 'cannot_parse' }),
} as const satisfies Record<string, PipelineResult>

/** Builds the pipeline from its parts. */
export function createPipeline(parts: PipelineParts): Pipeline {
  const { sources, filters, log, clock, signal } = parts
  const rejected = throttledWarn(log, clock)
  /** Only the route, a fixed reason and the client's address: nothing the unauthenticated sender wrote. */
  const reject = (route: Route, req: RawRequest, message: string, reason?: string): undefined => {
    rejected(`${route.name}\u0000${message}\u0000${reason ?? ''}`, message, { route: route.name, reason, client: req.clientAddress })
    return undefined
  }

  /** The source that vouches for the request (or, on an `INSECURE_NO_AUTH` route, the one whose headers it carries). */
  async function verify(route: Route, req: RawRequest): Promise<{ source: Source | undefined } | { refused: BrowserRefusal } | undefined> {
    const source = sources.find((s) => req.headers[s.header] !== undefined || s.claims?.(req.headers) === true)
    if (route.secrets.includes(INSECURE_NO_AUTH)) {
      // Checked on the socket the request came in on: an embedder may serve gateway.handler on any address.
      if (req.localAddress !== undefined && !isLoopback(req.localAddress)) {
        return reject(route, req, 'rejected request: INSECURE_NO_AUTH is refused off loopback')
      }
      // A proxy on this machine (nginx in front of a loopback bind) brings the network to loopback: a request
      // it forwarded says so in its headers, and is refused too.
      if (PROXY_HEADERS.some((h) => req.headers[h] !== undefined)) {
        return reject(route, req, 'rejected request: INSECURE_NO_AUTH is refused for a request a proxy forwarded')
      }
      // A page in the developer's browser reaches loopback too: what only a browser sends is refused.
      const refusal = browserRefusal(req.headers)
      if (refusal !== undefined) {
        reject(route, req, 'rejected request: INSECURE_NO_AUTH is refused for what a browser page can send', refusal === 'from_a_browser' ? 'Origin or Sec-Fetch-Site header' : 'Content-Type not application/json')
        return { refused: refusal }
      }
      return { source }
    }
    if (!source) return reject(route, req, 'rejected request: no signature header')
    const result = await source.verify(req, route.secrets)
    return result.ok ? { source } : reject(route, req, 'rejected request: invalid signature', result.reason)
  }

  /** Why the route does not take `event` (which rule, in words), or undefined when it does. */
  async function ignoredBecause(event: WebhookEvent, route: Route): Promise<string | undefined> {
    if (route.events.length > 0 && !route.events.includes(event.type)) {
      return `event ${quoted(event.type)} is not in the route's events [${route.events.join(', ')}]`
    }
    const action = actionOf(event.payload)
    if (route.actions.length > 0 && !route.actions.includes(action)) {
      const actions = `[${route.actions.join(', ')}]`
      return action === '' ? `the event has no action; the route's actions are ${actions}` : `action ${quoted(action)} is not in the route's actions ${actions}`
    }
    for (const filter of filters) {
      if (!(await filter.accepts(event, { route, log, signal }))) return `the event filter "${filter.name}" declined it`
    }
    return undefined
  }

  /** The sender's delivery id: its source's header, else `X-Request-ID`; undefined means none was sent. */
  function deliveryIdOf(source: Source | undefined, headers: Readonly<Record<string, string>>): string | undefined {
    const own = source ? source.deliveryId?.(headers) : firstOf(sources, (s) => s.deliveryId?.(headers))
    return own || headers['x-request-id'] || undefined
  }

  /** The event type: its source's header, else the payload's `event_type`, else its `type`, else `unknown`. */
  function typeOf(source: Source | undefined, headers: Readonly<Record<string, string>>, payload: JsonObject): string {
    const own = source ? source.eventType?.(headers) : firstOf(sources, (s) => s.eventType?.(headers))
    if (own) return own
    for (const key of ['event_type', 'type']) {
      const value = payload[key]
      if (typeof value === 'string' && value !== '') return value
    }
    return 'unknown'
  }

  return async function process(route, req) {
    const verified = await verify(route, req)
    if (!verified) return REJECTED.invalidSignature
    if ('refused' in verified) return { kind: 'rejected', reason: verified.refused }
    const parsed = parsePayload(req.body, req.headers['content-type'])
    if (!parsed) {
      // Signed, but still nothing of it is logged: a fixed reason, throttled like forgeries.
      reject(route, req, 'rejected request: cannot parse body', 'not a JSON object (or nested over 100 deep)')
      return REJECTED.cannotParse
    }
    const { payload } = parsed

    const type = typeOf(verified.source, req.headers, payload)
    const headerId = deliveryIdOf(verified.source, req.headers)
    const deliveryId = headerId ?? String(clock())
    const event: WebhookEvent = { route: route.name, type, deliveryId, payload, receivedAt: clock() }
    const fields: Fields = { route: route.name, delivery: deliveryId, event: type, client: req.clientAddress }

    const origin = checkedOrigin(verified.source?.origin?.(req.headers, payload))
    // The event that closed the pull request ends its group's jobs even where the route's actions skip it.
    const closing = closingJob(route, event, parsed.json, headerId, origin)
    if (closing !== undefined) {
      log.info('pull request closed: its concurrency group\'s queued and running jobs end skipped (closed)', fields)
      // Deferred rather than refused over the rate limit: a close the sender does not retry must still be stored.
      const admission = await admitJob(parts, route, closing, fields, 'defer')
      return { kind: 'admitted', route: route.name, event: type, deliveryId, admission }
    }

    const ignored = await ignoredBecause(event, route)
    if (ignored !== undefined) {
      log.debug('ignored event', { ...fields, reason: ignored })
      return { kind: 'ignored', event: type, reason: ignored }
    }

    // A comment that is no command, or a command from a commenter the route does not trust, is stored nowhere.
    const command = parts.commands === undefined ? undefined : await parts.commands.check(event, route)
    if (command?.kind === 'ignored') {
      log.debug('ignored event', { ...fields, reason: command.reason })
      return { kind: 'ignored', event: type, reason: command.reason }
    }
    const stored = command?.kind === 'command' ? command.payload : payload

    // A timestamp id is never de-duplicated: without an id header, retries cannot be told apart.
    const dedupKey = headerId === undefined ? undefined : dedupKeyOf(route.name, headerId)
    const job: NewJob = {
      route: route.name, event: type, deliveryId, dedupKey, payload: stored, payloadJson: stored === payload ? parsed.json : JSON.stringify(stored), receivedAt: event.receivedAt,
      group: command?.kind === 'command' && !command.joinsGroup ? undefined : groupOf(route.name, route.concurrency, stored), ...origin,
      ...turnsOf(route, stored, event.receivedAt),
    }
    // A route that does not say follows its sender: GitLab disables a hook answered 4xx, so its events wait instead.
    const overLimit = route.overLimit ?? verified.source?.overLimit ?? 'reject'
    const admission = await admitJob(parts, route, job, fields, overLimit)
    // Acknowledged once stored (a duplicate is not): before any agent slot frees, whatever waits in the queue.
    if (command?.kind === 'command' && (admission.kind === 'accepted' || admission.kind === 'deferred')) {
      await parts.commands?.acknowledge(route, command.command, stored, command.hostBudget)
    }
    return { kind: 'admitted', route: route.name, event: type, deliveryId, admission }
  }
}

/**
 * The job of an event that closed or merged a pull request, on a route with a `concurrency` group whose actions
 * would drop it: it joins its group (the key rendered from this payload) as one that closes it, so the group's
 * queued and running jobs end `skipped` (closed) and it runs nothing itself. Undefined for any other event, for a
 * route without a group (or whose key this payload cannot render), for one whose `events` do not take it, and
 * for one whose `actions` take it (that route asked to run on a close: its job joins the group as any other).
 */
function closingJob(route: Route, event: WebhookEvent, payloadJson: string, headerId: string | undefined, origin: Pick<NewJob, 'link' | 'hook'>): NewJob | undefined {
  const action = actionOf(event.payload)
  if (!closesPullRequest(event.type, action)) return undefined
  if (route.actions.length === 0 || route.actions.includes(action)) return undefined
  if (route.events.length > 0 && !route.events.includes(event.type)) return undefined
  const group = groupOf(route.name, route.concurrency, event.payload)
  if (group === undefined) return undefined
  return {
    route: route.name, event: event.type, deliveryId: event.deliveryId, dedupKey: headerId === undefined ? undefined : dedupKeyOf(route.name, headerId),
    payload: event.payload, payloadJson, receivedAt: event.receivedAt, group: { ...group, closes: true }, ...origin,
    ...turnsOf(route, event.payload, event.receivedAt),
  }
}

/**
 * A job's fairness key and start deadline, rendered when it is accepted and stored with it (docs/costs.md,
 * "Fairness and expiry"): an event without the key's fields takes the current turn, as a job of a route without
 * `fair_by` does.
 */
function turnsOf(route: Route, payload: JsonObject, receivedAt: number): Pick<NewJob, 'fairKey' | 'startBy'> {
  return {
    fairKey: route.fairBy === undefined ? undefined : renderedKey(route.fairBy, payload),
    startBy: route.startWithinMs === undefined ? undefined : receivedAt + route.startWithinMs,
  }
}

/** GitHub's `action`, else GitLab's `object_attributes.action`; empty when the event has none. */
function actionOf(payload: JsonObject): string {
  const own = payload['action']
  if (typeof own === 'string') return own
  const attributes = payload['object_attributes']
  const nested = typeof attributes === 'object' && attributes !== null && !Array.isArray(attributes) ? attributes['action'] : undefined
  return typeof nested === 'string' ? nested : ''
}

/**
 * Sender text (an event type, an action) inside a reason: cut to 64 characters and JSON-quoted, so it can be
 * neither long nor mistaken for the reason's own words; the answer's JSON escapes what is left.
 */
function quoted(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 63)}…` : text)
}

/** The fields of a request's log lines. */
type Fields = Readonly<Record<string, string | undefined>>

function firstOf(sources: readonly Source[], read: (s: Source) => string | undefined): string | undefined {
  for (const source of sources) {
    const value = read(source)
    if (value) return value
  }
  return undefined
}
