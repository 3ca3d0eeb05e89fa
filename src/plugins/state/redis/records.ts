/**
 * A hookpilot job as a BullMQ job, one record with each fact in one place: the state is BullMQ's own list the
 * job is in (derived, never stored twice: see {@link stateOf}), its fair turn BullMQ's priority less one (the
 * order BullMQ leases in: turns.ts); the record's other fields live in the job's data
 * (BullMQ keeps it as JSON, written whole by the job's one writer at a time: the admission, then the try that
 * holds the lock); and the one fact another writer adds while a try runs, the newer job of its concurrency group
 * that outdates it, is a field of its own on BullMQ's job hash ({@link MARK_FIELD}), so no script ever reads or
 * edits the data's JSON.
 */
import type { Job, JobType, Queue } from 'bullmq'
import type { Redis } from 'ioredis'
import type { JobRecord, JobStage, NewJob } from '../../../core/jobs/lifecycle/job-record.js'
import type { JobState } from '../../../core/job-state.js'
import { isFinal } from '../../../core/jobs/lifecycle/transitions.js'
import type { JsonObject } from '../../../core/types.js'
import { usageOf, type RunUsage } from '../../../core/usage.js'
import { compressJson, decompressJson } from '../compress-json.js'
import type { Keys } from './keys.js'

/**
 * The field of BullMQ's job hash (beside `data`) naming the newer job of the group that outdated this one: set by
 * whoever admits the newer job (groups.ts), kept by the try's fenced writes (worker.ts), cleared only when the
 * job is queued again.
 */
export const MARK_FIELD = 'supersededBy'

/** What a BullMQ job's data holds. */
export interface JobData {
  readonly route: string
  readonly event: string
  readonly deliveryId: string
  readonly dedupKey?: string | undefined
  /** The payload's JSON text as it arrived, compressed, in base64 (JSON carries it without escaping a quote). */
  readonly payload: string
  readonly receivedAt: number
  readonly stage: JobStage
  readonly answer?: string | undefined
  readonly progress: number
  /** Tries of the current stage, counted when a worker takes the job. */
  readonly attempts: number
  readonly notBefore: number
  readonly lastError?: string | undefined
  readonly updatedAt: number
  /** When the lifecycle ended the job (BullMQ's `finishedOn` stands in for a job finished before this field). */
  readonly finishedAt?: number | undefined
  /** A completed job that ended `skipped` or `superseded` rather than `done`. */
  readonly outcome?: 'skipped' | 'superseded' | undefined
  readonly group?: string | undefined
  readonly burstAt?: number | undefined
  readonly covers?: number | undefined
  readonly note?: string | undefined
  readonly url?: string | undefined
  /** Every start of the job's agent (absent in a job stored before it was counted). */
  readonly runs?: number | undefined
  /** The event's page and the GitHub webhook that delivered it, set when the job is accepted. */
  readonly link?: string | undefined
  readonly hook?: string | undefined
  /** The fairness key and the start deadline, set when the job is accepted (its turn is BullMQ's priority). */
  readonly fairKey?: string | undefined
  readonly startBy?: number | undefined
  /** What the job's agent runs used (core/usage.ts); absent before any run reported it. */
  readonly usage?: RunUsage | undefined
}

/**
 * The highest priority BullMQ takes (its `PRIORITY_LIMIT`, 2^21 - 1: its score is the priority times 2^32 plus a
 * counter, exact in a double up to there).
 */
const MAX_PRIORITY = 2 ** 21 - 1

/**
 * The highest turn Redis gives (turns.ts): a job whose turn would be higher takes this one. A round goes back to
 * 0 whenever the queue is empty (nothing queued, nothing running), so only a queue that never empties through two
 * million rounds reaches it; past it, its jobs are leased first due, first served.
 */
export const MAX_TURN = MAX_PRIORITY - 1

/** The BullMQ priority of a job of turn `turn`: a job's turn is its priority less one (turns.ts). */
export function priorityOf(turn: number): number {
  return Math.min(turn, MAX_TURN) + 1
}

/** The turn of a job BullMQ holds with priority `priority` (0, or none: a job stored before turns, turn 0). */
export function turnOfPriority(priority: number | undefined): number {
  return priority !== undefined && Number.isFinite(priority) && priority > 0 ? priority - 1 : 0
}

/** The BullMQ job type of every hookpilot job. */
export type BullJob = Job<JobData, void, string>

/**
 * A payload as a job's data holds it. Stored as it came, a 25 KB payload was an escaped string inside BullMQ's
 * JSON: about 29 KiB of Redis memory a job, sent over the socket and appended to the append-only file whole.
 */
export function encodePayload(json: string): string {
  return compressJson(json).toString('base64')
}

/** The payload a job's data holds. */
export function decodePayload(data: JobData): JsonObject {
  return JSON.parse(decompressJson(Buffer.from(data.payload, 'base64'))) as JsonObject
}

/** The data of a newly accepted job. */
export function newData(job: NewJob, now: number): JobData {
  return {
    route: job.route, event: job.event, deliveryId: job.deliveryId, dedupKey: job.dedupKey, payload: encodePayload(job.payloadJson),
    receivedAt: job.receivedAt, stage: 'run', progress: 0, attempts: 0, notBefore: Math.max(now, job.runAt ?? now), updatedAt: now,
    link: job.link, hook: job.hook, fairKey: job.fairKey, startBy: job.startBy,
  }
}

/** BullMQ's states as the job lifecycle names them (a completed job ended done, skipped or superseded). */
export function stateOf(bullState: string, data?: Pick<JobData, 'outcome'>): JobState {
  switch (bullState) {
    case 'active':
      return 'running'
    case 'completed':
      return data?.outcome ?? 'done'
    case 'failed':
      return 'failed'
    default:
      return 'queued' // waiting, delayed, prioritized
  }
}

/** BullMQ's lists for each state (what `getJobs` and `getJobCounts` take). */
export const BULL_STATES: Readonly<Record<JobState, readonly JobType[]>> = {
  queued: ['wait', 'delayed', 'prioritized'],
  running: ['active'],
  done: ['completed'],
  skipped: ['completed'],
  superseded: ['completed'],
  failed: ['failed'],
}

/** A BullMQ job and its {@link MARK_FIELD}, read together. */
export interface StoredJob {
  readonly job: BullJob
  readonly mark: string | undefined
}

/** Job `id` and its mark, read in parallel (no round trip more than the job's own); undefined when it is gone. */
export async function readJob(queue: Queue<JobData, void, string>, redis: Redis, keys: Keys, id: string): Promise<StoredJob | undefined> {
  const [job, mark] = await Promise.all([queue.getJob(id) as Promise<BullJob | undefined>, redis.hget(keys.bull(id), MARK_FIELD)])
  return job && { job, mark: mark ?? undefined }
}

/** The marks of jobs `ids`, in one round trip (a pipeline). */
export async function marksOf(redis: Redis, keys: Keys, ids: readonly string[]): Promise<Array<string | undefined>> {
  if (ids.length === 0) return []
  const pipeline = redis.pipeline()
  for (const id of ids) pipeline.hget(keys.bull(id), MARK_FIELD)
  const answers = (await pipeline.exec()) ?? []
  return ids.map((_, i) => {
    const [err, value] = answers[i] ?? [null, null]
    if (err) throw err
    return typeof value === 'string' ? value : undefined
  })
}

/**
 * The record of a BullMQ job in `state` (BullMQ's completed list holds done, skipped and superseded jobs), with
 * `mark`, its {@link MARK_FIELD}.
 */
export function recordOf(job: BullJob, listed: JobState, mark: string | undefined): JobRecord {
  const d = job.data
  const state = listed === 'done' || listed === 'skipped' || listed === 'superseded' ? (d.outcome ?? 'done') : listed
  const finishedAt = isFinal(state) ? (d.finishedAt ?? job.finishedOn) : undefined
  return {
    id: String(job.id),
    route: d.route,
    event: d.event,
    deliveryId: d.deliveryId,
    dedupKey: d.dedupKey,
    state,
    stage: d.stage,
    answer: d.answer,
    progress: d.progress,
    attempts: d.attempts,
    notBefore: d.notBefore,
    lastError: d.lastError ?? (state === 'failed' ? job.failedReason : undefined),
    receivedAt: d.receivedAt,
    updatedAt: d.finishedAt !== undefined ? d.updatedAt : Math.max(d.updatedAt, finishedAt ?? 0),
    finishedAt,
    group: d.group,
    burstAt: d.burstAt,
    covers: d.covers ?? 1,
    // A job stored before the mark had its own field carries it in its data; its next write moves it there.
    supersededBy: mark ?? (d as { readonly supersededBy?: string }).supersededBy,
    note: d.note,
    url: d.url,
    runs: d.runs ?? (d.stage === 'run' ? d.attempts : 1),
    link: d.link,
    hook: d.hook,
    fairKey: d.fairKey,
    turn: turnOfPriority(job.priority),
    startBy: d.startBy,
    usage: usageOf(d.usage),
  }
}

/**
 * The lifecycle's record written back into a job's data (after a transition computed on the record); its
 * `supersededBy` is not data: the writer puts it in {@link MARK_FIELD}.
 */
export function dataOf(record: JobRecord, payload: string): JobData {
  return {
    route: record.route, event: record.event, deliveryId: record.deliveryId, dedupKey: record.dedupKey, payload,
    receivedAt: record.receivedAt, stage: record.stage, answer: record.answer, progress: record.progress,
    attempts: record.attempts, notBefore: record.notBefore, lastError: record.lastError, updatedAt: record.updatedAt,
    finishedAt: record.finishedAt, outcome: record.state === 'skipped' || record.state === 'superseded' ? record.state : undefined,
    group: record.group, burstAt: record.burstAt, covers: record.covers, note: record.note, url: record.url,
    runs: record.runs, link: record.link, hook: record.hook, fairKey: record.fairKey, startBy: record.startBy, usage: record.usage,
  }
}
