/**
 * The memory backend's records and the indexes kept in step with them: every job by id (a finished one as a
 * compact {@link FinishedEntry}), de-dup keys, finish times, the queued ids, concurrency groups, and the
 * queued and running counts. What a job's next record is, the lifecycle decides; this only stores it.
 */
import type { JobRecord } from '../../../core/jobs/lifecycle/job-record.js'
import type { JobState } from '../../../core/job-state.js'
import { isFinal } from '../../../core/jobs/lifecycle/transitions.js'
import type { JsonObject } from '../../../core/types.js'
import { FinishedEntry, packable } from './finished-entry.js'

/** How many done jobs keep their payloads, so an operator's retry can run one again. */
export const DONE_PAYLOADS = 1_000

/** A queued or running job (a finished one is a {@link FinishedEntry}: compact, for the de-dup window). */
export interface Entry {
  job: JobRecord
  payload: JsonObject | undefined
  /** The token of the lease a running job is under. */
  token: string | undefined
}
/** A job's entry, whatever its state. */
export type Kept = Entry | FinishedEntry

/** The state of an entry's job, without rebuilding a finished one's record. */
export const stateOf = (e: Kept): JobState => (e instanceof FinishedEntry ? e.state : e.job.state)

/** Creates empty records. */
export function memoryRecords() {
  const jobs = new Map<string, Kept>()
  const keys = new Map<string, string>() // de-dup key -> job id
  const finishedAt = new Map<string, number>() // job id -> finished at, oldest first
  const waiting = new Set<string>() // queued job ids, so a lease never walks the finished ones
  const active = new Set<string>() // running job ids, so an add's fair turn never walks the finished ones
  const withPayload = new Set<string>() // done jobs that still hold their payload, oldest first
  const groups = new Map<string, Set<string>>() // concurrency group -> its queued and running job ids
  const busy = new Set<string>() // groups with a running job
  const records = {
    jobs, keys, finishedAt, waiting, active, groups, busy,
    queued: 0,
    running: 0,
    /**
     * Stores `job` as the record of `e`'s job, keeping the indexes in step; returns the job's entry now (a
     * finished job's is compact, one queued again gets a live entry back; a live entry whose job stays
     * unfinished is changed in place).
     */
    put(e: Kept, job: JobRecord): Kept {
      const was = e.job
      count(was.state, -1)
      count(job.state, 1)
      if (was.group !== undefined && was.state === 'running') busy.delete(was.group)
      if (job.group !== undefined) {
        if (job.state === 'running') busy.add(job.group)
        const members = groups.get(job.group) ?? new Set()
        if (isFinal(job.state)) members.delete(job.id)
        else members.add(job.id)
        if (members.size > 0) groups.set(job.group, members)
        else groups.delete(job.group)
      }
      let next: Kept
      if (isFinal(job.state) && packable(job)) next = new FinishedEntry(job, e.payload)
      else if (e instanceof FinishedEntry) next = { job, payload: e.payload, token: undefined }
      else {
        e.job = job
        if (job.state !== 'running') e.token = undefined
        next = e
      }
      // In the same place in the map (list() walks it in order of ids); a job already forgotten stays so.
      if (next !== e && jobs.has(job.id)) jobs.set(job.id, next)
      if (job.state === 'queued') waiting.add(job.id)
      else waiting.delete(job.id)
      if (job.state === 'running') active.add(job.id)
      else active.delete(job.id)
      finishedAt.delete(job.id) // re-inserted at the young end
      if (job.finishedAt !== undefined) finishedAt.set(job.id, job.finishedAt)
      // A done job keeps its record for the de-dup window, but only the latest keep their payloads (tens of KB
      // each, needed only to run one again): memory stays bounded by what runs, not by what ran.
      if (isFinal(job.state) && job.state !== 'failed') {
        withPayload.add(job.id)
        for (const oldest of withPayload) {
          if (withPayload.size <= DONE_PAYLOADS) break
          withPayload.delete(oldest)
          const old = jobs.get(oldest)
          const oldState = old && stateOf(old)
          if (old && oldState !== undefined && isFinal(oldState) && oldState !== 'failed') old.payload = undefined
        }
      }
      return next
    },
    /** Forgets job `id` and its de-dup key. */
    remove(id: string): void {
      const gone = jobs.get(id)
      finishedAt.delete(id)
      withPayload.delete(id)
      waiting.delete(id)
      active.delete(id)
      jobs.delete(id)
      const key = gone?.job.dedupKey
      if (key !== undefined && keys.get(key) === id) keys.delete(key)
    },
    /** The entry of a queued or running job. */
    liveEntry(id: string): Entry | undefined {
      const e = jobs.get(id)
      return e instanceof FinishedEntry ? undefined : e
    },
  }
  function count(state: JobState, delta: number): void {
    if (state === 'queued') records.queued += delta
    else if (state === 'running') records.running += delta
  }
  return records
}
