/**
 * Steps 6 to 10 of the request table, shared by every source: de-dup, rate limit, store. A webhook reaches
 * them after its signature and filters (`pipeline.ts`); an event of a source that is not HTTP (a market
 * stream, `intake.ts`) reaches them directly. The answer is a value ({@link Admission}): what it becomes on the
 * wire is the request flow's (`http/flow.ts`), or the intake's for a source that is not HTTP.
 */
import { messageOf } from '../errors.js'
import type { GatewayEvents } from '../events.js'
import { publishJob } from '../jobs/views/job-events.js'
import type { DedupStore, JobQueue, LimitAnswer, LimitAsk, Reservation } from '../jobs/lifecycle/state-backend.js'
import type { NewJob } from '../jobs/lifecycle/job-record.js'
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

/**
 * What became of an event handed to {@link admitJob}. Every expected outcome is one of these, a store that
 * fails included: admitting never throws for it.
 */
export type Admission =
  /** Stored, to run now. */
  | { readonly kind: 'accepted'; readonly jobId: string }
  /** Stored over its route's rate limit (`over_limit: defer`), to run at `runAt` (ms since the epoch). */
  | { readonly kind: 'deferred'; readonly jobId: string; readonly runAt: number }
  /** Its delivery id was seen already: nothing stored. */
  | { readonly kind: 'duplicate' }
  /** Over its route's rate limit: nothing stored; the window frees a slot in `retryAfterSeconds`. */
  | { readonly kind: 'rate_limited'; readonly retryAfterSeconds: number }
  /** `agent.max_queue` jobs are waiting: nothing stored. */
  | { readonly kind: 'queue_full' }
  /** The state store failed (`reason`, its message): nothing stored, and the sender may send it again. */
  | { readonly kind: 'store_unavailable'; readonly reason: string }

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

/**
 * De-dups, rate-limits and stores `job`; the key stays reserved until the job is stored or refused. A store
 * that fails is counted (`storeError`) and answered `store_unavailable`; its callers log it in their words.
 */
export async function admitJob(parts: AdmitParts, route: Route, job: NewJob, fields: AdmitFields, overLimit: OverLimit = 'reject'): Promise<Admission> {
  try {
    return await admit(parts, route, job, fields, overLimit)
  } catch (err) {
    parts.events?.emit('storeError', { operation: 'accept' })
    return { kind: 'store_unavailable', reason: messageOf(err) }
  }
}

async function admit(parts: AdmitParts, route: Route, job: NewJob, fields: AdmitFields, overLimit: OverLimit): Promise<Admission> {
  const { dedup, queue, log, clock } = parts
  const ask = limitAsk(parts, route, overLimit)
  const reservation: Reservation | undefined = job.dedupKey === undefined ? undefined : await dedup.reserve(job.dedupKey, ask)
  const duplicate = (): Admission => {
    log.info('duplicate delivery', fields)
    return { kind: 'duplicate' }
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
      return { kind: 'rate_limited', retryAfterSeconds: slot.retryAfterSeconds }
    }
    const { runAt } = slot
    const added = await queue.add(runAt === undefined ? job : { ...job, runAt }, reservation)
    if (added.status === 'duplicate') return duplicate()
    if (added.status === 'full') {
      log.error('queue full: event refused', fields)
      return { kind: 'queue_full' }
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
    return runAt === undefined ? { kind: 'accepted', jobId: added.id } : { kind: 'deferred', jobId: added.id, runAt }
  } finally {
    release() // after add() a second release does nothing; after a throw it gives the key back
    // A moment booked for a job that was not stored (a duplicate, a full queue, a store error) is given back.
    if (!stored && slot !== undefined && 'release' in slot) await Promise.resolve(slot.release()).catch(() => {})
  }
}
