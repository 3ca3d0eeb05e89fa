/**
 * The lifecycle's rule for fair turns (a route's `fair_by`), part of the one owner of the job lifecycle: a job
 * takes a turn when it is accepted, and jobs are leased by turn first ({@link leaseOrder} in transitions.ts), so
 * jobs of many fairness keys (repositories, installations) are leased round-robin: the first queued job of every
 * key, then the second of every key, and so on. A key with a hundred queued jobs therefore takes one lease per
 * round, and a key that has one job waits at most one round, never behind the hundred.
 *
 * A turn is a number decided once, in the write that stores the job, from three values the store reads in the
 * same write ({@link TurnsSeen}); leasing then reads nothing more than the order it already used (turn, then
 * when due, then id), so it costs what leasing without fairness costs.
 */
import type { JobRecord } from './job-record.js'

/** What a store reads, in the write that stores a job, for {@link takeTurn}. */
export interface TurnsSeen {
  /** The lowest turn of the queued jobs; undefined when none is queued. */
  readonly firstQueued: number | undefined
  /** The highest turn of the running jobs (the turn the leases have reached); undefined when none runs. */
  readonly lastRunning: number | undefined
  /** The highest turn of the queued jobs of the new job's fairness key; undefined when it has none queued (or no key). */
  readonly lastOfKey: number | undefined
}

/**
 * The turn of a job accepted now, with its fairness key already on the record: the round the queue is at (the
 * later of its first queued job's turn and its last leased one's), or, when its key has queued jobs, the round
 * after its key's last one, whichever is later. A job without a key takes the current round: with no `fair_by`
 * anywhere every job's turn is 0, and the lease order is first due, first served, as before fairness.
 */
export function takeTurn(job: JobRecord, seen: TurnsSeen): JobRecord {
  const round = Math.max(seen.firstQueued ?? 0, seen.lastRunning ?? 0)
  const turn = job.fairKey === undefined || seen.lastOfKey === undefined ? round : Math.max(round, seen.lastOfKey + 1)
  return { ...job, turn }
}

/** A record's turn: a record stored before fair turns existed has none, and takes 0 (the first round). */
export function turnOf(job: Pick<JobRecord, 'turn'>): number {
  return job.turn ?? 0
}
