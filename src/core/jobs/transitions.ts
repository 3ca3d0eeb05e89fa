/**
 * The job lifecycle, owned here and nowhere else: every edge of a job's life is one pure function over its
 * record, and every rule about those edges (a lease counts one try, saving the answer moves to stage
 * `deliver`, a job that crashed its gateway every time fails, purge never cuts into the de-dup window) is
 * written once, in this module. A state backend (memory, SQLite, Redis, yours) stores what these functions
 * return, atomically, and decides nothing itself. {@link EDGES} lists the edges; docs/durability.md draws
 * them, and a test keeps the two equal.
 */
import { GatewayError } from '../errors.js'
import type { AddResult, JobOutcome, JobRecord, JobState, NewJob, Reservation } from './state-backend.js'

/** How long a done job keeps its delivery id after it finished, by default: a redelivery within it is a duplicate. */
export const DEDUP_WINDOW_MS = 60 * 60 * 1000

/**
 * How many times a job's agent stage is started before it fails: each start after the first means the gateway
 * stopped (or crashed) during the run, and a job that crashes the gateway every time must not do so forever.
 */
export const MAX_RUNS = 3

/** The job that holds a de-dup key, as the store knows it (a {@link JobRecord} is one). */
export interface KeyHolder {
  readonly id: string
  readonly state: JobState
  readonly finishedAt: number | undefined
}

// ---------------------------------------------------------------------------------------------------------
// reserve and add

/**
 * What a delivery whose key `holder` holds is: a failed job's key goes to a redelivery (which queues that job
 * again); a queued or running job's does not; a done job's is held for `windowMs` after it finished, then a
 * redelivery is a new job.
 */
export function decide(holder: KeyHolder | undefined, windowMs: number, now: number): Reservation['status'] {
  if (!holder) return 'new'
  switch (holder.state) {
    case 'failed':
      return 'redeliver'
    case 'done':
      return (holder.finishedAt ?? now) + windowMs > now ? 'duplicate' : 'new'
    default:
      return 'duplicate'
  }
}

/** What storing an accepted event does, decided inside the write that stores it. */
export type Admission =
  /** Store a new job; the key, if any, moves to it ({@link keyMoved} for its previous holder). */
  | { readonly kind: 'insert' }
  /** Queue the failed job that holds the key again ({@link queuedAgain}) instead of storing a new one. */
  | { readonly kind: 'requeue'; readonly job: JobRecord }
  | { readonly kind: 'duplicate'; readonly id: string }
  /** `max_queue` jobs are waiting: store nothing. */
  | { readonly kind: 'full' }

/** What {@link admit} decides from. */
export interface AdmitInput {
  /** The job holding the event's de-dup key now, read in the same write; undefined when none (or no key). */
  readonly holder: JobRecord | undefined
  readonly windowMs: number
  readonly now: number
  /** Jobs queued now, counted in the same write. */
  readonly queued: number
  readonly maxQueue: number
}

/**
 * The reservation made before the rate limit is decided again when the job is stored: whatever happened to
 * the key's job in between (an operator's retry queued it, another process stored the delivery first) wins,
 * so a copy is a duplicate on every backend. A duplicate needs no room; a new or re-queued job does.
 */
export function admit({ holder, windowMs, now, queued, maxQueue }: AdmitInput): Admission {
  const status = decide(holder, windowMs, now)
  if (status === 'duplicate' && holder) return { kind: 'duplicate', id: holder.id }
  if (queued >= maxQueue) return { kind: 'full' }
  return status === 'redeliver' && holder ? { kind: 'requeue', job: holder } : { kind: 'insert' }
}

/** What `add` answers when the admission stores nothing (`duplicate`, `full`); undefined when it stores a job. */
export function refusal(admission: Admission): AddResult | undefined {
  if (admission.kind === 'duplicate') return { status: 'duplicate', id: admission.id }
  return admission.kind === 'full' ? { status: 'full' } : undefined
}

/** The record of an event just accepted, as job `id`. */
export function accepted(job: NewJob, id: string, t: number): JobRecord {
  return {
    id, route: job.route, event: job.event, deliveryId: job.deliveryId, dedupKey: job.dedupKey, state: 'queued', stage: 'run',
    answer: undefined, progress: 0, attempts: 0, notBefore: t, lastError: undefined, receivedAt: job.receivedAt, updatedAt: t,
    finishedAt: undefined,
  }
}

/** A done job whose de-dup key passed to a newer job of the same delivery (its window had ended). */
export function keyMoved(job: JobRecord): JobRecord {
  return { ...job, dedupKey: undefined }
}

/**
 * A failed job, queued again by a redelivery of its event: it resumes at the stage it failed in (a stored
 * answer is delivered without a new agent run), with a fresh count of tries.
 */
export function queuedAgain(job: JobRecord, t: number): JobRecord {
  return { ...job, state: 'queued', attempts: 0, notBefore: t, updatedAt: t, finishedAt: undefined }
}

// ---------------------------------------------------------------------------------------------------------
// a try

/** A queued job taken by a worker: the lease counts one try before the worker starts, so a crash counts too. */
export function leased(job: JobRecord, t: number): JobRecord {
  return { ...job, state: 'running', attempts: job.attempts + 1, updatedAt: t }
}

/**
 * Why a job just leased must not run again, or undefined: its agent stage has started {@link MAX_RUNS} times
 * before, each ended by the gateway dying. The worker then ends the try `failed` with this reason.
 */
export function crashLoop(job: JobRecord): string | undefined {
  if (job.stage !== 'run' || job.attempts <= MAX_RUNS) return undefined
  return `the gateway stopped during each of ${MAX_RUNS} runs of this job; retry it with hookpilot jobs retry ${job.id}`
}

/** The agent's answer stored: the job moves to stage `deliver` (a crash from here on only delivers again). */
export function answered(job: JobRecord, text: string, t: number): JobRecord {
  return { ...job, stage: 'deliver', answer: text, progress: 0, attempts: 1, updatedAt: t }
}

/** The first `parts` parts of the answer are posted. */
export function progressed(job: JobRecord, parts: number, t: number): JobRecord {
  return { ...job, progress: parts, updatedAt: t }
}

/** The record after a try ended with `outcome` at time `t`. */
export function finished(job: JobRecord, outcome: JobOutcome, t: number): JobRecord {
  switch (outcome.kind) {
    case 'done':
      return { ...job, state: 'done', updatedAt: t, finishedAt: t }
    case 'failed':
      return { ...job, state: 'failed', lastError: outcome.reason, updatedAt: t, finishedAt: t }
    case 'retry':
      return { ...job, state: 'queued', notBefore: outcome.at, lastError: outcome.reason, updatedAt: t }
    case 'interrupted':
      // The gateway stopped the try itself: as far as the job is concerned it did not happen.
      return { ...job, state: 'queued', attempts: Math.max(0, job.attempts - 1), notBefore: t, updatedAt: t }
  }
}

/**
 * A running job whose worker is gone (its process died, or its lease ran out): queued again at once, its try
 * still counted (the agent may have run), so {@link crashLoop} sees a job that kills its gateway every time.
 */
export function recovered(job: JobRecord, t: number): JobRecord {
  return { ...job, state: 'queued', notBefore: t, updatedAt: t }
}

// ---------------------------------------------------------------------------------------------------------
// operators, purge and retention

/**
 * An operator's `hookpilot jobs retry`: a failed job resumes where it failed (as a redelivery would); a done
 * job runs again from the start, agent included (its answer was delivered; a retry asks for a new one).
 * A queued or running job has nothing to retry.
 */
export function retried(job: JobRecord, t: number): JobRecord {
  if (job.state === 'failed') return queuedAgain(job, t)
  if (job.state === 'done') {
    return { ...queuedAgain(job, t), stage: 'run', answer: undefined, progress: 0, lastError: undefined }
  }
  throw new GatewayError('ERR_STATE', `job ${job.id} is ${job.state}: only a done or failed job can be retried.`)
}

/** Finished jobs that a purge or the retention deletes: those that ended before these times. */
export interface PurgeCutoff {
  readonly doneBefore: number
  readonly failedBefore: number
}

/**
 * What "purge what finished before `before`" may delete: a done job holds its delivery id for the de-dup
 * window, so one that finished within it is kept (deleting it would let a redelivery run again).
 */
export function purgeCutoff(before: number, now: number, windowMs: number): PurgeCutoff {
  return { doneBefore: Math.min(before, now - windowMs), failedBefore: before }
}

/** The retention's cutoff at `now`: done jobs kept `keepDoneMs`, failed ones `keepFailedMs`. */
export function retentionCutoff(now: number, retention: Retention): PurgeCutoff {
  return { doneBefore: now - retention.keepDoneMs, failedBefore: now - retention.keepFailedMs }
}

/** Whether `job` is deleted by `cutoff` (an unfinished job never is). */
export function purgeable(job: Pick<JobRecord, 'state' | 'finishedAt'>, cutoff: PurgeCutoff): boolean {
  if (job.finishedAt === undefined) return false
  if (job.state === 'done') return job.finishedAt < cutoff.doneBefore
  return job.state === 'failed' && job.finishedAt < cutoff.failedBefore
}

/** How long finished jobs are kept, and the de-dup window that done ones must outlive. */
export interface Retention {
  readonly keepDoneMs: number
  readonly keepFailedMs: number
  readonly windowMs: number
}

/**
 * A backend's retention, checked: done jobs are kept at least the de-dup window (a done job deleted sooner
 * lets a redelivery of its event run again), and every duration is a positive number of milliseconds.
 */
export function checkedRetention(options: { keepDoneMs?: number | undefined; keepFailedMs?: number | undefined; windowMs?: number | undefined }): Retention {
  const windowMs = options.windowMs ?? DEDUP_WINDOW_MS
  const keepDoneMs = options.keepDoneMs ?? Math.max(24 * DEDUP_WINDOW_MS, windowMs)
  const keepFailedMs = options.keepFailedMs ?? 7 * 24 * DEDUP_WINDOW_MS
  for (const [name, ms] of Object.entries({ windowMs, keepDoneMs, keepFailedMs })) {
    if (!(Number.isFinite(ms) && ms > 0)) throw new GatewayError('ERR_STATE', `${name} must be a positive number of milliseconds, got ${ms}.`)
  }
  if (keepDoneMs < windowMs) {
    throw new GatewayError('ERR_STATE', `keepDoneMs (${keepDoneMs} ms) is shorter than the de-dup window (${windowMs} ms): a done job must be kept at least as long as it holds its delivery id. Keep done jobs longer, or shorten the window.`)
  }
  return { keepDoneMs, keepFailedMs, windowMs }
}

// ---------------------------------------------------------------------------------------------------------
// the drawing

/** Where an edge starts: a state, or `accepted` for an event not yet stored. */
export type EdgeStart = JobState | 'accepted'
/** Where an edge ends: a state, or `deleted` for a purge. */
export type EdgeEnd = JobState | 'deleted'

/** One edge of the lifecycle: the function that takes it and the states it joins. */
export interface Edge {
  readonly from: EdgeStart
  readonly to: EdgeEnd
  /** What takes the edge, as docs/durability.md labels it: a function of this module, or `purge`. */
  readonly via: string
}

/**
 * Every edge of a job's life. docs/durability.md draws exactly these (a test compares the two), and a test
 * applies each function to a record in `from` and checks that it lands in `to`.
 */
export const EDGES: readonly Edge[] = [
  { from: 'accepted', to: 'queued', via: 'accepted' },
  { from: 'queued', to: 'running', via: 'leased' },
  { from: 'running', to: 'running', via: 'answered' },
  { from: 'running', to: 'running', via: 'progressed' },
  { from: 'running', to: 'done', via: 'finished' },
  { from: 'running', to: 'failed', via: 'finished' },
  { from: 'running', to: 'queued', via: 'finished' },
  { from: 'running', to: 'queued', via: 'recovered' },
  { from: 'failed', to: 'queued', via: 'queuedAgain' },
  { from: 'failed', to: 'queued', via: 'retried' },
  { from: 'done', to: 'queued', via: 'retried' },
  { from: 'done', to: 'done', via: 'keyMoved' },
  { from: 'done', to: 'deleted', via: 'purgeable' },
  { from: 'failed', to: 'deleted', via: 'purgeable' },
]
