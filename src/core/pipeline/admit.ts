/**
 * Steps 6 to 10 of the request table, shared by every source: de-dup, rate limit, store. A webhook reaches
 * them after its signature and filters (`pipeline.ts`); an event of a source that is not HTTP (a market
 * stream, `intake.ts`) reaches them directly.
 */
import type { GatewayEvents } from '../events.js'
import { deferred, ERRORS, json, rateLimited, type GatewayResponse } from '../http/responses.js'
import { publishJob } from '../jobs/job-events.js'
import type { DedupStore, JobQueue, LimitAnswer, LimitAsk, NewJob, Reservation } from '../jobs/state-backend.js'
import type { Clock, Logger, OverLimit, RateLimiter, Route } from '../types.js'

/** What admitting needs. */
export interface AdmitParts {
  readonly dedup: DedupStore
  readonly limiter: RateLimiter
  readonly queue: JobQueue
  readonly log: Logger
  readonly clock: Clock
  readonly events?: GatewayEvents | undefined
}

/** The fields of an event's log lines. */
export type AdmitFields = Readonly<Record<string, string | undefined>>

/** What the rate limit allowed: a hit now, or a moment booked, which is given back if its job is not stored. */
type Slot = { readonly runAt?: undefined } | { readonly runAt: number; release(): unknown }
/** The rate limit refused the request: answer 429. */
type Refusal = { readonly retryAfterSeconds: number }

/** What the request will ask the rate limit: a hit now, or (`defer`) the moment the limit allows, booked. */
function limitAsk(parts: AdmitParts, route: Route, overLimit: OverLimit): LimitAsk {
  // A limiter that cannot book makes every route reject.
  const mode = overLimit === 'defer' && parts.limiter.book ? 'book' : 'hit'
  return { limiter: parts.limiter, key: route.name, limit: route.rateLimit, mode }
}

/**
 * The rate limit's answer to `ask`: the one the reservation brought (the backend decided it in the same step),
 * else the limiter's. A hit now, a moment booked, or a refusal.
 */
async function limit(parts: AdmitParts, ask: LimitAsk, brought: LimitAnswer | undefined): Promise<Slot | Refusal> {
  const { limiter, clock } = parts
  const answer: LimitAnswer = brought
    ?? (ask.mode === 'book' && limiter.book ? { booked: await limiter.book(ask.key, ask.limit) } : { hit: await limiter.hit(ask.key, ask.limit) })
  if ('booked' in answer) {
    const booking = answer.booked
    return booking.waitMs > 0 ? { runAt: clock() + booking.waitMs, release: () => booking.release() } : {}
  }
  return answer.hit.ok ? {} : { retryAfterSeconds: answer.hit.retryAfterSeconds }
}

/** De-dups, rate-limits and stores `job`; the key stays reserved until the job is stored or refused. */
export async function admitJob(parts: AdmitParts, route: Route, job: NewJob, fields: AdmitFields, overLimit: OverLimit = 'reject'): Promise<GatewayResponse> {
  const { dedup, queue, log, clock } = parts
  const ask = limitAsk(parts, route, overLimit)
  const reservation: Reservation | undefined = job.dedupKey === undefined ? undefined : await dedup.reserve(job.dedupKey, ask)
  const duplicate = () => {
    log.info('duplicate delivery', fields)
    return json(200, { status: 'duplicate', delivery_id: job.deliveryId })
  }
  if (reservation?.status === 'duplicate') return duplicate()
  const release = () => reservation?.release()
  let slot: Slot | Refusal | undefined
  let stored = false
  try {
    slot = await limit(parts, ask, reservation?.status === 'new' ? reservation.limit : undefined)
    if ('retryAfterSeconds' in slot) {
      release()
      log.warn('rate limit exceeded', { ...fields, retry_after: slot.retryAfterSeconds })
      return rateLimited(slot.retryAfterSeconds)
    }
    const { runAt } = slot
    const added = await queue.add(runAt === undefined ? job : { ...job, runAt }, reservation)
    if (added.status === 'duplicate') return duplicate()
    if (added.status === 'full') {
      log.error('queue full: event refused', fields)
      return ERRORS.queueFull
    }
    stored = true
    const when = runAt === undefined ? {} : { run_at: new Date(runAt).toISOString() }
    if (reservation?.status === 'redeliver') log.info(`redelivery of a failed job: queued again${runAt === undefined ? '' : ', deferred (over the rate limit)'}`, { ...fields, job: added.id, ...when })
    else if (runAt !== undefined) log.info('over the rate limit: deferred', { ...fields, job: added.id, ...when })
    else log.info('accepted', { ...fields, job: added.id })
    const named = { route: route.name, deliveryId: job.deliveryId, event: job.event, attempts: 0 }
    publishJob('accepted', { ...named, id: added.id }, job.receivedAt)
    for (const gone of added.superseded ?? []) {
      publishJob('superseded', gone, clock(), { reason: gone.note, by: added.id })
      log.info('superseded before it ran: a newer event of its group came', { route: gone.route, delivery: gone.deliveryId, job: gone.id, by: added.id })
      parts.events?.emit('jobFinished', { route: gone.route, outcome: 'superseded' })
    }
    if (runAt !== undefined) return deferred(route.name, job, runAt)
    return json(202, { status: 'accepted', route: route.name, event: job.event, delivery_id: job.deliveryId })
  } finally {
    release() // after add() a second release does nothing; after a throw it gives the key back
    // A moment booked for a job that was not stored (a duplicate, a full queue, a store error) is given back.
    if (!stored && slot !== undefined && 'release' in slot) await Promise.resolve(slot.release()).catch(() => {})
  }
}
