/** Rows of the `jobs` table and the records they stand for. */
import { GatewayError } from '../../../core/errors.js'
import type { JobRecord, JobStage } from '../../../core/jobs/lifecycle/job-record.js'
import type { JobState } from '../../../core/job-state.js'
import { usageOf, type RunUsage } from '../../../core/usage.js'

/** A usage column read back: undefined for text that is not one (it is never written so, but a file may be edited). */
function storedUsage(text: string): RunUsage | undefined {
  try {
    return usageOf(JSON.parse(text))
  } catch {
    return undefined
  }
}

/** The columns of a job without its payload and lease (`state` is the job's state: skipped and superseded included). */
export const RECORD_COLUMNS = `id, route, event, delivery_id, dedup_key, coalesce(outcome, state) AS state, stage, answer, progress, attempts,
  not_before, last_error, received_at, updated_at, finished_at, grp, burst_at, covers, superseded_by, note, url, runs, link, hook, fair_key, turn, start_by, usage`

/** The SQL condition on the stored columns that selects jobs in each state (a skipped job is stored as done). */
const STATE_IS: Readonly<Record<JobState, string>> = {
  queued: `state = 'queued'`,
  running: `state = 'running'`,
  failed: `state = 'failed'`,
  done: `(state = 'done' AND outcome IS NULL)`,
  skipped: `(state = 'done' AND outcome = 'skipped')`,
  superseded: `(state = 'done' AND outcome = 'superseded')`,
}

/** The SQL condition that selects jobs in `state`; only a known state reaches the SQL text. */
export function stateIs(state: JobState): string {
  const condition = Object.hasOwn(STATE_IS, state) ? STATE_IS[state] : undefined
  if (condition === undefined) throw new GatewayError('ERR_STATE', `unknown job state "${String(state)}"; one of ${Object.keys(STATE_IS).join(', ')}`)
  return condition
}

/** A row as better-sqlite3 returns {@link RECORD_COLUMNS}. */
export interface JobRow {
  readonly id: number
  readonly route: string
  readonly event: string
  readonly delivery_id: string
  readonly dedup_key: string | null
  readonly state: JobState
  readonly stage: JobStage
  readonly answer: string | null
  readonly progress: number
  readonly attempts: number
  readonly not_before: number
  readonly last_error: string | null
  readonly received_at: number
  readonly updated_at: number
  readonly finished_at: number | null
  readonly grp: string | null
  readonly burst_at: number | null
  readonly covers: number
  readonly superseded_by: string | null
  readonly note: string | null
  readonly url: string | null
  readonly runs: number
  readonly link: string | null
  readonly hook: string | null
  readonly fair_key: string | null
  readonly turn: number
  readonly start_by: number | null
  readonly usage: string | null
}

/** The record a row stands for. */
export function toRecord(row: JobRow): JobRecord {
  return {
    id: String(row.id),
    route: row.route,
    event: row.event,
    deliveryId: row.delivery_id,
    dedupKey: row.dedup_key ?? undefined,
    state: row.state,
    stage: row.stage,
    answer: row.answer ?? undefined,
    progress: row.progress,
    attempts: row.attempts,
    notBefore: row.not_before,
    lastError: row.last_error ?? undefined,
    receivedAt: row.received_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at ?? undefined,
    group: row.grp ?? undefined,
    burstAt: row.burst_at ?? undefined,
    covers: row.covers,
    supersededBy: row.superseded_by ?? undefined,
    note: row.note ?? undefined,
    url: row.url ?? undefined,
    runs: row.runs,
    link: row.link ?? undefined,
    hook: row.hook ?? undefined,
    fairKey: row.fair_key ?? undefined,
    turn: row.turn,
    startBy: row.start_by ?? undefined,
    usage: row.usage === null ? undefined : storedUsage(row.usage),
  }
}

/** The mutable columns of a record, as named parameters of {@link UPDATE_RECORD}. */
export function recordParams(job: JobRecord): Record<string, string | number | null> {
  return {
    id: Number(job.id),
    state: job.state === 'skipped' || job.state === 'superseded' ? 'done' : job.state,
    outcome: job.state === 'skipped' || job.state === 'superseded' ? job.state : null,
    stage: job.stage,
    answer: job.answer ?? null,
    progress: job.progress,
    attempts: job.attempts,
    not_before: job.notBefore,
    last_error: job.lastError ?? null,
    updated_at: job.updatedAt,
    finished_at: job.finishedAt ?? null,
    grp: job.group ?? null,
    burst_at: job.burstAt ?? null,
    covers: job.covers,
    superseded_by: job.supersededBy ?? null,
    note: job.note ?? null,
    url: job.url ?? null,
    runs: job.runs,
    turn: job.turn ?? 0,
    usage: job.usage === undefined ? null : JSON.stringify(job.usage),
  }
}

/** The mutable columns of a record, as `SET` assignments of {@link recordParams}. */
const SET_RECORD = `state = @state, outcome = @outcome, stage = @stage, answer = @answer, progress = @progress, attempts = @attempts,
  not_before = @not_before, last_error = @last_error, updated_at = @updated_at, finished_at = @finished_at, grp = @grp,
  burst_at = @burst_at, covers = @covers, superseded_by = @superseded_by, note = @note, url = @url, runs = @runs, turn = @turn, usage = @usage`

/** Writes a record's mutable columns and ends its lease (a job that is not running holds no lease). */
export const UPDATE_RECORD = `UPDATE jobs SET ${SET_RECORD}, owner = NULL, lease_until = NULL, lease_token = NULL, processes = NULL
  WHERE id = @id`

/** As {@link UPDATE_RECORD}, for a record without a de-dup key: one whose key passed to a newer job (`keyMoved`). */
export const UPDATE_DROPPING_KEY = `UPDATE jobs SET ${SET_RECORD}, dedup_key = NULL, owner = NULL, lease_until = NULL, lease_token = NULL,
  processes = NULL WHERE id = @id`

/** Writes a record's mutable columns and leaves its lease as it is (a running job outdated by a newer one). */
export const UPDATE_KEEPING_LEASE = `UPDATE jobs SET ${SET_RECORD} WHERE id = @id`

/** Writes a running job's record under its lease (`@token`), extended to `@until`; changes nothing otherwise. */
export const UPDATE_LEASED = `UPDATE jobs SET ${SET_RECORD}, lease_until = @until WHERE id = @id AND lease_token = @token`

/** Writes a just-leased record with its lease: owner, token and how long it lasts. */
export const UPDATE_LEASE = `UPDATE jobs SET ${SET_RECORD}, owner = @owner, lease_token = @token, lease_until = @until WHERE id = @id`

/**
 * Deletes the finished jobs a cutoff names (the lifecycle's `purgeable`, as SQL): `?` done (skipped, superseded:
 * stored as done) before, `?` failed before.
 */
export const DELETE_FINISHED = 'DELETE FROM jobs WHERE (state = \'done\' AND finished_at < ?) OR (state = \'failed\' AND finished_at < ?)'
