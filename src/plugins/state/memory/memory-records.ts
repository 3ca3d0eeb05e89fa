/**
 * The memory backend's records and the indexes kept in step with them: every job by id (a finished one as a
 * compact {@link FinishedEntry}), de-dup keys, finish times, the queued jobs in lease order and each fairness
 * key's queued turns, concurrency groups, and the queued and running counts. What a job's next record is, the
 * lifecycle decides; this only stores it.
 */
import type { JobRecord } from '../../../core/jobs/lifecycle/job-record.js'
import type { JobState } from '../../../core/job-state.js'
import { isFinal, leaseOrder } from '../../../core/jobs/lifecycle/transitions.js'
import { turnOf } from '../../../core/jobs/lifecycle/fairness.js'
import { SortedArray } from '../../../util/sorted.js'
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
  // The queued jobs' records in the lifecycle's lease order (turn, due, id): a lease walks from the first until it
  // has its jobs, instead of every queued job at every lease, and the lowest queued turn is the first's.
  const waiting = new SortedArray<JobRecord>(leaseOrder)
  // Each fairness key's queued turns, in order: an add's fair turn reads its key's last without a walk.
  const turnsOfKey = new Map<string, SortedArray<number>>()
  const active = new Set<string>() // running job ids, so an add's fair turn never walks the finished ones
  const withPayload = new Set<string>() // done jobs that still hold their payload, oldest first
  const groups = new Map<string, Set<string>>() // concurrency group -> its queued and running job ids
  const busy = new Set<string>() // groups with a running job
  const records = {
    jobs, keys, finishedAt, waiting, turnsOfKey, active, groups, busy,
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
      if (was.state === 'queued') unqueue(was)
      if (job.state === 'queued') enqueue(job)
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
    /**
     * Files a new job's entry, its job queued and in no group yet (`put` then files it as its record says), with
     * its de-dup key.
     */
    add(e: Entry): void {
      jobs.set(e.job.id, e)
      if (e.job.dedupKey !== undefined) keys.set(e.job.dedupKey, e.job.id)
      enqueue(e.job)
      records.queued++
    },
    /** Forgets job `id` and its de-dup key. */
    remove(id: string): void {
      const gone = jobs.get(id)
      finishedAt.delete(id)
      withPayload.delete(id)
      if (gone && stateOf(gone) === 'queued') unqueue(gone.job)
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
  /** Files queued record `job` in the queue's indexes. */
  function enqueue(job: JobRecord): void {
    waiting.add(job)
    if (job.fairKey === undefined) return
    const turns = turnsOfKey.get(job.fairKey) ?? new SortedArray<number>((a, b) => a - b)
    turns.add(turnOf(job))
    turnsOfKey.set(job.fairKey, turns)
  }
  /** Takes queued record `job` (as it was filed) out of the queue's indexes. */
  function unqueue(job: JobRecord): void {
    waiting.delete(job, (held) => held.id === job.id)
    if (job.fairKey === undefined) return
    const turns = turnsOfKey.get(job.fairKey)
    turns?.delete(turnOf(job))
    if (turns?.size === 0) turnsOfKey.delete(job.fairKey)
  }
  function count(state: JobState, delta: number): void {
    if (state === 'queued') records.queued += delta
    else if (state === 'running') records.running += delta
  }
  return records
}
