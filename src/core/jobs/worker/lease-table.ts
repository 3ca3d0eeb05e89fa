/**
 * What the worker kit needs of a backend's table: four atomic primitives and two reads, no rules. A backend
 * of your own implements this over its rows (docs/plugins.md); the pool and the tries do the rest.
 */
import type { JobRecord } from '../lifecycle/job-record.js'
import type { JsonObject } from '../../types.js'
import type { RecordedProcess } from './orphans.js'

/** A job as a table hands it out: leased under `token`, which every later write of this try names. */
export interface LeasedRow {
  readonly job: JobRecord
  readonly payload: JsonObject
  readonly token: string
}

/** How a write of a try treats its lease: extended to `until`, or ended (the try's outcome). */
export type LeaseAfter = { readonly until: number } | 'release'

/**
 * What the pool needs of a table: atomic primitives, no rules. Writes resolve once they are stored.
 */
export interface LeaseTable {
  /**
   * Takes up to `max` due queued jobs (earliest `notBefore` first), stores each as the lifecycle's `leased`
   * record under a new token, leased until `until`, and returns them.
   */
  lease(max: number, now: number, until: number): Promise<LeasedRow[]>
  /**
   * If job `id` is still leased under `token`, stores `change(job)` and extends or ends the lease; resolves
   * the stored record, or undefined when the lease is no longer this token's (nothing is written then).
   */
  update(id: string, token: string, change: (job: JobRecord) => JobRecord, after: LeaseAfter): Promise<JobRecord | undefined>
  /** Extends the leases `held` names (job id → token) to `until`; resolves the ids whose lease was still theirs. */
  renew(held: ReadonlyMap<string, string>, until: number): Promise<ReadonlySet<string>>
  /**
   * Keeps `process` (a process group the try started, as the kit recorded it) with job `id` while it is leased
   * under `token`, so that the kit's recovery at a next start can kill it if this process dies
   * (crash-recovery.ts). A store that cannot outlive its process keeps nothing.
   */
  recordProcess(id: string, token: string, process: RecordedProcess): void
  /**
   * When the earliest queued job falls due; undefined when none is queued. A network store may answer with a
   * promise (the pool then sets its timer once it resolves, and polls as usual if it rejects).
   */
  nextDue(): number | undefined | Promise<number | undefined>
  /** Jobs queued or running (a network store may answer with a promise). */
  unfinished(): number | Promise<number>
}
