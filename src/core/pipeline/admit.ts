/**
 * Steps 6 to 10 of the request table, shared by every source: de-dup, rate limit, store. A webhook reaches
 * them after its signature and filters (`pipeline.ts`); an event of a source that is not HTTP (a market
 * stream, `intake.ts`) reaches them directly.
 */
import type { GatewayEvents } from '../events.js'
import { ERRORS, json, rateLimited, type GatewayResponse } from '../http/responses.js'
import type { DedupStore, JobQueue, NewJob, Reservation } from '../jobs/state-backend.js'
import type { Logger, RateLimiter, Route } from '../types.js'

/** What admitting needs. */
export interface AdmitParts {
  readonly dedup: DedupStore
  readonly limiter: RateLimiter
  readonly queue: JobQueue
  readonly log: Logger
  readonly events?: GatewayEvents | undefined
}

/** The fields of an event's log lines. */
export type AdmitFields = Readonly<Record<string, string | undefined>>

/** De-dups, rate-limits and stores `job`; the key stays reserved until the job is stored or refused. */
export async function admitJob(parts: AdmitParts, route: Route, job: NewJob, fields: AdmitFields): Promise<GatewayResponse> {
  const { dedup, limiter, queue, log } = parts
  const reservation: Reservation | undefined = job.dedupKey === undefined ? undefined : await dedup.reserve(job.dedupKey)
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
    for (const id of added.superseded ?? []) {
      log.info('superseded before it ran: a newer event of its group came', { route: route.name, job: id, by: added.id })
      parts.events?.emit('jobFinished', { route: route.name, outcome: 'superseded' })
    }
    return json(202, { status: 'accepted', route: route.name, event: job.event, delivery_id: job.deliveryId })
  } finally {
    release() // after add() a second release does nothing; after a throw it gives the key back
  }
}
