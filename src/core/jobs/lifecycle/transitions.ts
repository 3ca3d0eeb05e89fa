/**
 * The job lifecycle, owned here and nowhere else: every edge of a job's life is one pure function over its
 * record, and every rule about those edges (a lease counts one try, saving the answer moves to stage
 * `deliver`, a job that crashed its gateway every time fails, purge never cuts into the de-dup window) is
 * written once, in this module (the concurrency groups' rules in groups.ts, re-exported here). A state backend
 * (memory, SQLite, Redis, yours) stores what these functions return, atomically, and decides nothing itself.
 * {@link EDGES} (edges.ts) lists the edges; docs/durability.md draws them, and a test keeps the two equal.
 */
import { GatewayError } from '../../errors.js'
import type { AddResult, JobOutcome, Reservation } from './state-backend.js'
import type { FinalState, JobState } from '../../job-state.js'
import type { JobRecord, NewJob } from './job-record.js'
import { closed, isClosingMark, superseded } from './groups.js'
import { turnOf } from './fairness.js'
import { addUsage, type RunUsage } from '../../usage.js'

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

/** Whether a job in `state` has ended (done, skipped, superseded or failed). */
export function isFinal(state: JobState): state is FinalState {
  return state !== 'queued' && state !== 'running'
}

/**
 * What a delivery whose key `holder` holds is: a failed job's key goes to a redelivery (which queues that job
 * again); a queued or running job's does not; a job that ended otherwise (done, skipped, superseded: it was
 * handled) holds it for `windowMs` after it finished, then a redelivery is a new job.
 */
export function decide(holder: KeyHolder | undefined, windowMs: number, now: number): Reservation['status'] {
  if (!holder) return 'new'
  if (holder.state === 'failed') return 'redeliver'
  if (!isFinal(holder.state)) return 'duplicate'
  return (holder.finishedAt ?? now) + windowMs > now ? 'duplicate' : 'new'
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

/** The record of an event just accepted, as job `id`: due at once, or at its `runAt` (a deferred event). */
export function accepted(job: NewJob, id: string, t: number): JobRecord {
  return {
    id, route: job.route, event: job.event, deliveryId: job.deliveryId, dedupKey: job.dedupKey, state: 'queued', stage: 'run',
    answer: undefined, progress: 0, attempts: 0, notBefore: Math.max(t, job.runAt ?? t), lastError: undefined, receivedAt: job.receivedAt, updatedAt: t,
    finishedAt: undefined, group: undefined, burstAt: undefined, covers: 1, supersededBy: undefined, note: undefined, url: undefined, runs: 0,
    link: job.link, hook: job.hook, fairKey: job.fairKey, turn: 0, startBy: job.startBy, usage: undefined,
  }
}

/** A finished job whose de-dup key passed to a newer job of the same delivery (its window had ended). */
export function keyMoved(job: JobRecord): JobRecord {
  return { ...job, dedupKey: undefined }
}

/**
 * A failed job, queued again by a redelivery of its event: it resumes at the stage it failed in (a stored
 * answer is delivered without a new agent run), with a fresh count of tries. Due at once, or at `runAt`: the
 * moment the route's rate limit booked for a redelivery over it (`over_limit: defer`), as for a new event
 * ({@link accepted}).
 */
export function queuedAgain(job: JobRecord, t: number, runAt?: number): JobRecord {
  return {
    ...job, state: 'queued', attempts: 0, notBefore: Math.max(t, runAt ?? t), updatedAt: t, finishedAt: undefined, supersededBy: undefined, note: undefined,
  }
}

// ---------------------------------------------------------------------------------------------------------
// a try

/**
 * The order in which due jobs are leased: the lowest turn first (fairness.ts: the keys of `fair_by` take turns;
 * every job's turn is 0 without it), then the earliest `notBefore`, then the oldest id (as SQL writes it,
 * `ORDER BY turn, not_before, id`). A job the gateway stopped or lost while it ran keeps its turn and is due again
 * from when it was received ({@link resumed}), so it goes before every job accepted after it.
 */
export function leaseOrder(a: Pick<JobRecord, 'id' | 'notBefore' | 'turn'>, b: Pick<JobRecord, 'id' | 'notBefore' | 'turn'>): number {
  return turnOf(a) - turnOf(b) || a.notBefore - b.notBefore || compareIds(a.id, b.id)
}

/** Ids as the backends make them: numbers compare as numbers, anything else as text. */
function compareIds(a: string, b: string): number {
  const [x, y] = [Number(a), Number(b)]
  return Number.isSafeInteger(x) && Number.isSafeInteger(y) ? x - y : a < b ? -1 : a > b ? 1 : 0
}

/**
 * When a job that was running is due again: when it was received (or its earlier time), not now. A job whose
 * run a crash or a shutdown cut off had already waited its turn; queued behind everything that came meanwhile,
 * it ran last after a restart.
 */
function resumed(job: JobRecord): number {
  return Math.min(job.receivedAt, job.notBefore)
}

/**
 * A queued job taken by a worker: the lease counts one try before the worker starts, so a crash counts too; a
 * lease of the agent stage counts one run of the agent (`runs`, which no stage change resets).
 */
export function leased(job: JobRecord, t: number): JobRecord {
  return { ...job, state: 'running', attempts: job.attempts + 1, runs: job.runs + (job.stage === 'run' ? 1 : 0), updatedAt: t }
}

/**
 * Why a job just leased must not run again, or undefined: its agent stage has started `maxRuns` times before
 * ({@link MAX_RUNS}, or the worker's own retry budget when that is larger), the last of them ended by the
 * gateway dying (a run that failed by itself was retried, or failed, by its worker). The worker then ends the
 * try `failed` with this reason. A job whose runs failed before is said so, with the last failure.
 */
export function crashLoop(job: JobRecord, maxRuns: number = MAX_RUNS): string | undefined {
  const limit = Math.max(MAX_RUNS, maxRuns)
  if (job.stage !== 'run' || job.attempts <= limit) return undefined
  const retry = `retry it with hookpilot jobs retry ${job.id}`
  if (job.lastError === undefined) return `the gateway stopped during each of ${limit} runs of this job; ${retry}`
  return `${limit} runs of this job ended without an answer, the last one by the gateway stopping (the last failure before it: ${job.lastError}); ${retry}`
}

/** The reason a job ends when it was not started within its route's `start_within_seconds`: its note begins with it. */
export const EXPIRED = 'expired'

/**
 * Why a job just leased must not run because it is too late, or undefined: its agent stage had not started by
 * its `startBy` (the route's `start_within_seconds` after it was received: after an outage, a queue that hours of
 * events built up is not reviewed hours late). The worker then ends the try `skipped`, the note starting with
 * {@link EXPIRED}. A job that already has its answer still delivers it: the run it paid for is not late.
 */
export function expired(job: Pick<JobRecord, 'stage' | 'startBy' | 'receivedAt'>, t: number): string | undefined {
  if (job.stage !== 'run' || job.startBy === undefined || t <= job.startBy) return undefined
  const seconds = Math.round((job.startBy - job.receivedAt) / 1000)
  return `${EXPIRED}: not started within the route's start_within_seconds (${seconds} s after it was received)`
}

/** The agent's answer stored: the job moves to stage `deliver` (a crash from here on only delivers again). */
export function answered(job: JobRecord, text: string, t: number): JobRecord {
  return { ...job, stage: 'deliver', answer: text, progress: 0, attempts: 1, updatedAt: t }
}

/** One agent run's usage added to the job's. */
export function used(job: JobRecord, usage: RunUsage, t: number): JobRecord {
  return { ...job, usage: addUsage(job.usage, usage), updatedAt: t }
}

/** The first `parts` parts of the answer are posted. */
export function progressed(job: JobRecord, parts: number, t: number): JobRecord {
  return { ...job, progress: parts, updatedAt: t }
}

/** The record after a try ended with `outcome` at time `t`. */
export function finished(job: JobRecord, outcome: JobOutcome, t: number): JobRecord {
  switch (outcome.kind) {
    case 'done':
      return { ...job, state: 'done', url: outcome.url, updatedAt: t, finishedAt: t }
    case 'skipped':
      return { ...job, state: 'skipped', note: outcome.reason, updatedAt: t, finishedAt: t }
    case 'superseded': {
      // The newer job of its group that replaced it is the record's (`outdated` marked it): the worker need not name it.
      const by = outcome.by ?? job.supersededBy
      // A closed or merged pull request marked it: it ends skipped (closed), whatever its worker saw.
      if (job.supersededBy !== undefined && isClosingMark(job.supersededBy)) return closed(job, job.supersededBy, t)
      const note = by === undefined || outcome.by !== undefined ? outcome.reason : `superseded by job ${by}: ${outcome.reason}`
      return { ...job, state: 'superseded', note, supersededBy: by, updatedAt: t, finishedAt: t }
    }
    case 'failed':
      return { ...job, state: 'failed', lastError: outcome.reason, updatedAt: t, finishedAt: t }
    case 'retry':
      return { ...job, state: 'queued', notBefore: outcome.at, lastError: outcome.reason, updatedAt: t }
    case 'wait': {
      // A shared limit had no room: the try did not run the agent, so neither it nor a run is counted.
      const runs = job.stage === 'run' ? Math.max(0, job.runs - 1) : job.runs
      return { ...job, state: 'queued', attempts: Math.max(0, job.attempts - 1), runs, notBefore: outcome.at, lastError: outcome.reason, updatedAt: t }
    }
    case 'interrupted': {
      // The gateway stopped the try itself: as far as the job's tries are concerned it did not happen, and it
      // goes first at the next lease. An agent that started still counts as a run; a lease handed back before
      // its worker started (`untried`) ran nothing.
      const runs = outcome.untried === true && job.stage === 'run' ? Math.max(0, job.runs - 1) : job.runs
      return { ...job, state: 'queued', attempts: Math.max(0, job.attempts - 1), runs, notBefore: resumed(job), updatedAt: t }
    }
  }
}

/**
 * A running job whose worker is gone (its process died, or its lease ran out): queued again at once, ahead of
 * every job accepted after it ({@link leaseOrder}), its try and its run still counted (the agent may have run),
 * so {@link crashLoop} sees a job that kills its gateway every time and `jobs show` every start of its agent.
 * One that a newer job of its group outdated ends `superseded` instead: its answer would be stale.
 */
export function recovered(job: JobRecord, t: number): JobRecord {
  if (job.supersededBy !== undefined) return superseded(job, job.supersededBy, t)
  return { ...job, state: 'queued', notBefore: resumed(job), updatedAt: t }
}

// ---------------------------------------------------------------------------------------------------------
// operators, purge and retention

/**
 * An operator's `hookpilot jobs retry`: a failed job resumes where it failed (as a redelivery would); a done,
 * skipped or superseded job runs again from the start, agent included (a retry asks for a new answer). The
 * route's start deadline is dropped: a job that expired runs when an operator retries it.
 * A queued or running job has nothing to retry.
 */
export function retried(job: JobRecord, t: number): JobRecord {
  // An operator asks for this run now: the route's start deadline, if the job had one, no longer holds.
  const now = { startBy: undefined }
  if (job.state === 'failed') return { ...queuedAgain(job, t), ...now }
  if (isFinal(job.state)) {
    return { ...queuedAgain(job, t), stage: 'run', answer: undefined, progress: 0, lastError: undefined, url: undefined, ...now }
  }
  throw new GatewayError('ERR_STATE', `job ${job.id} is ${job.state}: only a finished job (done, skipped, superseded or failed) can be retried.`)
}

/**
 * An operator's replay that runs the agent again (`hookpilot jobs retry --rerun-agent`): like {@link retried},
 * but a failed job that had its answer also starts from the agent, its stored answer dropped.
 */
export function rerun(job: JobRecord, t: number): JobRecord {
  return { ...retried(job, t), stage: 'run', answer: undefined, progress: 0, lastError: undefined, url: undefined }
}

/**
 * An operator's replay that delivers the stored answer again without a new agent run (`hookpilot jobs retry
 * --resend-answer`): a failed job resumes its delivery where it failed (as {@link retried}); a done, skipped or
 * superseded one posts its whole answer again. A job the agent never answered has nothing to resend.
 */
export function resent(job: JobRecord, t: number): JobRecord {
  const again = retried(job, t) // refuses a queued or running job
  if (job.answer === undefined) {
    throw new GatewayError('ERR_STATE', `job ${job.id} has no stored answer to resend (its agent never answered): replay it with --rerun-agent.`)
  }
  const progress = job.state === 'failed' ? job.progress : 0
  return { ...again, stage: 'deliver', answer: job.answer, progress, url: job.state === 'failed' ? again.url : undefined }
}

/** Finished jobs that a purge or the retention deletes: those that ended before these times. */
export interface PurgeCutoff {
  readonly doneBefore: number
  readonly failedBefore: number
}

/**
 * What "purge what finished before `before`" may delete: a done (skipped, superseded) job holds its delivery id for the de-dup
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
  if (job.finishedAt === undefined || !isFinal(job.state)) return false
  return job.finishedAt < (job.state === 'failed' ? cutoff.failedBefore : cutoff.doneBefore)
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
