/**
 * The entry of a source that is not HTTP (a market stream): its events skip the request table's HTTP steps
 * (signature, body, filters) and go through the same de-dup, rate limit and store as a webhook; the job they
 * become runs the agent and delivers like any other. The source names the occurrence in `deliveryId`, so an
 * event it detects twice (after a reconnect or a restart) is a duplicate, not a second job.
 */
import { throttledLog } from '../log/throttle.js'
import type { Clock, JsonObject, Route } from '../types.js'
import { admitJob, type AdmitParts } from './admit.js'
import { dedupKeyOf } from '../jobs/lifecycle/dedup-key.js'
import { validLink } from '../jobs/lifecycle/origin.js'

/** An event of a source that is not HTTP, as it hands it to the gateway. */
export interface SourcedEvent {
  /** A route the source declared (`GatewayPlugin.routes`) or added (`ConnectContext.routes`). */
  readonly route: string
  /** The event type (what `hookpilot jobs` shows): for a market watch, the condition met. */
  readonly type: string
  /** Names the occurrence, stable across detections: the de-dup key is the route and this id. */
  readonly deliveryId: string
  /** What the route's prompt and `deliver_extra` templates are rendered from. */
  readonly payload: JsonObject
  /** The page of what the event is about (a market's), kept on the job when it is an https URL (`validLink`). */
  readonly link?: string | undefined
}

/** What became of a {@link SourcedEvent}: `retry_after` (seconds) comes with `rate_limited`. */
export type IntakeResult =
  | { readonly status: 'accepted' | 'duplicate' | 'queue_full' | 'store_error' | 'unknown_route' }
  | { readonly status: 'rate_limited'; readonly retryAfterSeconds: number }

/** Where a source that is not HTTP hands its events (given to `GatewayPlugin.connect`). */
export interface EventIntake {
  /** De-dups, rate-limits and stores the event as a job of its route; never throws for an expected outcome. */
  admit(event: SourcedEvent): Promise<IntakeResult>
}

/** Builds the intake over the gateway's admission parts and the sources' own routes. */
export function createIntake(parts: AdmitParts & { readonly clock: Clock }, routes: { get(name: string): Route | undefined }): EventIntake {
  const storeFailed = throttledLog(parts.log, parts.clock, { level: 'error' })
  return {
    async admit(event) {
      const route = routes.get(event.route)
      if (route === undefined) return { status: 'unknown_route' }
      const payloadJson = JSON.stringify(event.payload)
      const fields = { route: route.name, delivery: event.deliveryId, event: event.type }
      const job = {
        route: route.name, event: event.type, deliveryId: event.deliveryId, dedupKey: dedupKeyOf(route.name, event.deliveryId),
        payload: event.payload, payloadJson, receivedAt: parts.clock(), link: validLink(event.link),
      }
      const admission = await admitJob(parts, route, job, fields)
      switch (admission.kind) {
        // The intake asks the limit to reject, never to defer; a deferred event is stored all the same.
        case 'accepted':
        case 'deferred':
          return { status: 'accepted' }
        case 'duplicate':
        case 'queue_full':
          return { status: admission.kind }
        case 'rate_limited':
          return { status: 'rate_limited', retryAfterSeconds: admission.retryAfterSeconds }
        case 'store_unavailable':
          storeFailed(`store\u0000${route.name}`, 'cannot store the event', { ...fields, reason: admission.reason })
          return { status: 'store_error' }
      }
    },
  }
}
