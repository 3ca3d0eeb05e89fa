/**
 * The writes that apply more than one rule of the lifecycle, run once for every backend over its
 * {@link JobStore}: the order of the rules in one write is the kit's, as the rules themselves are
 * (transitions.ts). An add decides again what the key's job is (`admit`), refuses (`refusal`), queues a failed
 * job again (`queuedAgain`) or moves the key (`keyMoved`) and stores the new job (`accepted`), joins the
 * concurrency group (`joinGroup`) and writes the group's other jobs, all in one write; then it tells the pool
 * of the running jobs it outdated (`supersede`) and gives the reservation back (`settle`).
 *
 * Each write is written once, as steps over the store's primitives (store-steps.ts), and runs over a
 * synchronous store in one go or over an asynchronous one with an `await` at each primitive.
 */
import type { AnyJobStore } from './job-store.js'
import { call, written, type Steps } from './store-steps.js'
import type { JobPool } from './pool.js'
import type { ReservationBook } from './reservations.js'
import { retriedAs } from '../lifecycle/retry-mode.js'
import type { AddResult, Reservation } from '../lifecycle/state-backend.js'
import type { JobGroup, JobRecord, NewJob } from '../lifecycle/job-record.js'
import type { RetryMode } from '../lifecycle/jobs-view.js'
import { accepted, admit, keyMoved, purgeCutoff, queuedAgain, refusal } from '../lifecycle/transitions.js'
import { closingMark, joinGroup, type Joined } from '../lifecycle/groups.js'
import { takeTurn } from '../lifecycle/fairness.js'
import type { Clock } from '../../types.js'

/** What one write of an add did: the queue's answer, and the running jobs it outdated (the new job is their newer one). */
export type Admitted = AddResult & { readonly outdated?: readonly string[] | undefined }

/** The limits an add decides by. */
export interface AddLimits {
  /** Most jobs waiting; past it the add stores nothing (`full`). */
  readonly maxQueue: number
  /** How long a done job holds its delivery id after it finished. */
  readonly windowMs: number
}

/** What {@link addJob} needs besides the store. */
export interface AddContext extends AddLimits {
  readonly now: Clock
  /** The backend's reservations: the add's is given back once the write is stored or refused. */
  readonly book: ReservationBook
  /** The backend's worker pool: told of the running jobs the add outdated, and woken for the new job. */
  readonly pool: Pick<JobPool, 'supersede' | 'wake'>
}

/**
 * A backend's `queue.add`, whole: a copy its reservation already knew of is a duplicate at once; otherwise the
 * payload is prepared, the job admitted in one write ({@link admitted}), the running jobs it outdated told so
 * and the pool woken. The reservation is settled whatever happened.
 */
export async function addJob<P>(store: AnyJobStore<P>, job: NewJob, reservation: Reservation | undefined, context: AddContext): Promise<AddResult> {
  if (reservation?.status === 'duplicate') return { status: 'duplicate', id: reservation.jobId }
  try {
    const t = context.now()
    const payload = await store.prepare(job)
    const added = await written(store, () => admitted<P>(job, payload, context, t), { admits: true })
    if (added.status !== 'accepted') return added
    // A running job of this process that the new one outdated learns it now (one of another process at its
    // next write); the new job may be due at once.
    // A closing event marks them with itself as closing (groups.ts): their workers stop and post nothing.
    const by = job.group?.closes === true ? closingMark(added.id) : added.id
    for (const id of added.outdated ?? []) context.pool.supersede(id, by)
    context.pool.wake()
    return added.superseded === undefined ? { status: 'accepted', id: added.id } : { status: 'accepted', id: added.id, superseded: added.superseded }
  } finally {
    if (reservation !== undefined) context.book.settle(reservation)
  }
}

/**
 * An add's write, in the lifecycle's order: the key's job now decides (`admit`); a duplicate or a full queue
 * stores nothing (`refusal`); the job queued (again) takes its fair turn (`takeTurn`, from the turns the store
 * reads in this write); a failed job holding the key is queued again and rejoins its group; otherwise
 * the key's previous holder gives its key up (`keyMoved`), and the new job is stored with its place in its
 * group already (its burst, what it covers, when it is due: none of it depends on the id the store gives),
 * then the group's other jobs are written naming it.
 */
export function* admitted<P>(job: NewJob, payload: P, limits: AddLimits, t: number): Steps<P, Admitted> {
  const holder = job.dedupKey === undefined ? undefined : yield* call<P, 'holder'>('holder', job.dedupKey)
  const admission = admit({ holder, windowMs: limits.windowMs, now: t, queued: yield* call<P, 'queued'>('queued'), maxQueue: limits.maxQueue })
  const refused = refusal(admission)
  if (refused) return refused
  if (admission.kind === 'requeue') return yield* joined<P>(yield* turnTaken<P>(queuedAgain(admission.job, t, job.runAt)), job.group, t, true)
  if (holder) yield* call<P, 'put'>('put', keyMoved(holder))
  const group = job.group
  const members = group ? yield* call<P, 'members'>('members', group.key) : []
  const fresh = yield* turnTaken<P>(accepted(job, '', t))
  const placed = group ? joinGroup(fresh, group, members, t).job : fresh
  const id = yield* call<P, 'insert'>('insert', placed, payload)
  if (!group) return { status: 'accepted', id }
  return yield* writeOthers<P>(joinGroup({ ...fresh, id }, group, members, t), id)
}

/** `record`, about to be queued, with its fair turn (the lifecycle's `takeTurn` over what the store reads now). */
function* turnTaken<P>(record: JobRecord): Steps<P, JobRecord> {
  const seen = yield* call<P, 'turns'>('turns', record.fairKey)
  return seen === undefined ? record : takeTurn(record, seen)
}

/**
 * Writes `record` (queued again: a redelivery, an operator's retry) and joins it to its concurrency group: the
 * lifecycle's joinGroup, where a job whose group has a newer job ends superseded at once.
 */
function* joined<P>(record: JobRecord, group: JobGroup | undefined, t: number, requeued: boolean): Steps<P, Admitted> {
  if (group === undefined) {
    yield* call<P, 'put'>('put', record)
    return { status: 'accepted', id: record.id }
  }
  const members = (yield* call<P, 'members'>('members', group.key)).filter((member) => member.id !== record.id)
  const newest = requeued ? yield* call<P, 'newest'>('newest', group.key) : undefined
  const join = joinGroup(record, group, members, t, newest)
  yield* call<P, 'put'>('put', join.job)
  return yield* writeOthers<P>(join, record.id)
}

/** Writes the group's jobs that `join` superseded or outdated: job `by` is their newer one. */
function* writeOthers<P>(join: Joined, by: string): Steps<P, Admitted> {
  const outdated: string[] = []
  for (const other of join.others) {
    yield* call<P, 'put'>('put', other)
    if (other.state === 'running') outdated.push(other.id)
  }
  return { status: 'accepted', id: by, superseded: join.superseded, outdated }
}

/**
 * A backend's `jobs.retry`, whole: job `id` queued again as `mode` says (the lifecycle refuses a queued or
 * running job) and rejoined to its concurrency group in one write (one whose group has a newer job ends
 * superseded); the running jobs it outdated are told, and the pool woken. Resolves the record as stored, or
 * undefined when there is no such job.
 */
export async function retryJob<P>(store: AnyJobStore<P>, id: string, mode: RetryMode, now: Clock, pool: Pick<JobPool, 'supersede' | 'wake'>): Promise<JobRecord | undefined> {
  const done = await written(store, () => retried<P>(id, mode, now))
  if (!done) return undefined
  for (const other of done.outdated) pool.supersede(other, id)
  pool.wake()
  return done.job
}

/**
 * A backend's `jobs.purge`: deletes the jobs that finished before `before`, never a done one still inside the
 * de-dup window (the lifecycle's `purgeCutoff`). Resolves how many.
 */
export function purgeJobs<P>(store: AnyJobStore<P>, before: number, now: number, windowMs: number): Promise<number> {
  return written(store, () => call<P, 'purge'>('purge', purgeCutoff(before, now, windowMs)))
}

/** An operator's retry's write: job `id` queued again and rejoined to its group; undefined when there is no such job. */
function* retried<P>(id: string, mode: RetryMode, now: Clock): Steps<P, { job: JobRecord; outdated: readonly string[] } | undefined> {
  const job = yield* call<P, 'get'>('get', id)
  if (!job) return undefined
  const t = now()
  const next = yield* turnTaken<P>(retriedAs(job, mode, t))
  const group = next.group === undefined ? undefined : { key: next.group, debounceMs: 0, maxWaitMs: 0 }
  const added = yield* joined<P>(next, group, t, true)
  // As stored (superseded, when its group has a newer job), over `next` for the fields a store that keeps
  // records as JSON leaves out when they are unset (the joined record never unsets one that `next` set).
  return { job: { ...next, ...(yield* call<P, 'get'>('get', id)) }, outdated: added.outdated ?? [] }
}
