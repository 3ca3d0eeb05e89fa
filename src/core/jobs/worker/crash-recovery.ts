/**
 * What happens to the jobs a crashed process left running, the same for every durable backend: the worker kit
 * judges whether each lease's owner is dead ({@link LeaseOwner}: by its pid in this namespace, by its lease
 * elsewhere), kills the process groups its try recorded (orphans.ts), and queues the job again through the
 * lifecycle's `recovered`. The store only keeps the owner's name, the lease's end and the recorded groups, and
 * writes the records this returns.
 */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { isRunning, ownerName, parseOwner, sameNamespace, thisOwner, type LeaseOwner } from './lease-owner.js'
import { killOrphans, parseRecorded } from './orphans.js'
import type { JobRecord } from '../lifecycle/job-record.js'
import { recovered } from '../lifecycle/transitions.js'

/** A running job as the store holds it: its record and its lease. */
export interface HeldJob {
  /** The job, as the store holds it (`running`). */
  readonly job: JobRecord
  /** The lease owner's name as the store kept it ({@link CrashRecovery.owner} of the process that leased it). */
  readonly owner: string | null
  /** When the lease runs out, unless renewed. */
  readonly leaseUntil: number | null
  /** The process groups its try recorded, as the store kept them: the JSON list of what `recordProcess` gave it. */
  readonly processes: string | null | undefined
}

/** What a recovery did. */
export interface Recovery {
  /** Jobs queued again. */
  readonly jobs: number
  /** Process groups killed. */
  readonly killed: number
  /** Jobs that ended instead (`superseded`: a newer job of their group outdated them while they ran). */
  readonly ended: readonly JobRecord[]
}

/** This process as the owner of the leases it takes, and the recovery of the jobs other owners left. */
export interface CrashRecovery {
  /** This process's name as a lease owner: the store writes it beside each lease this process takes. */
  readonly owner: string
  /** A new token for a lease of this process (its try's writes name it). */
  token(): string
  /**
   * Takes back the jobs of `held` whose owner is gone, inside the caller's write: kills the process groups they
   * left (only where their pids mean the same processes) and stores each as the lifecycle's `recovered` with `put`.
   */
  recover(held: readonly HeldJob[], put: (job: JobRecord) => void, now: number): Recovery
}

/** Creates this process's recovery (one per backend instance: its token tells it from an earlier life of its pid). */
export function crashRecovery(): CrashRecovery {
  const me = thisOwner(hostname(), randomBytes(6).toString('hex'))
  const owner = ownerName(me)
  let tokens = 0

  /**
   * Whether a job another owner leased goes back to the queue: always when that owner is dead here (a pid of
   * this namespace that no longer runs, or that is this process's own under another token: an earlier life of
   * this pid, like a container's pid 1); for an owner elsewhere (another host, boot or pid namespace, or written
   * some other way) only when its lease ran out. A live owner of this namespace keeps its jobs: it renews them
   * when it can, and its agents must not be killed under it.
   */
  function reclaim(name: string | null, leaseUntil: number | null, now: number): { readonly take: boolean; readonly local: boolean } {
    if (name === null) return { take: true, local: false }
    // This process's own job whose lease ran out: its try lost the lease (renewals the store refused, a full
    // disk) and was aborted, writing nothing more. Nobody else would give it back before a restart.
    if (name === owner) return { take: (leaseUntil ?? 0) <= now, local: false }
    const other: LeaseOwner | undefined = parseOwner(name)
    if (other !== undefined && sameNamespace(me, other)) {
      const dead = other.pid === me.pid ? other.token !== me.token : !isRunning(other.pid)
      return { take: dead, local: true }
    }
    return { take: (leaseUntil ?? 0) <= now, local: false }
  }

  return {
    owner,
    token: () => `${me.token}.${(++tokens).toString(36)}`,
    recover(held, put, now) {
      let jobs = 0
      let killed = 0
      const ended: JobRecord[] = []
      for (const row of held) {
        const { take, local } = reclaim(row.owner, row.leaseUntil, now)
        if (!take) continue
        // Pids mean these processes only in the owner's own namespace: elsewhere, nothing is killed here.
        if (local) killed += killOrphans(parseRecorded(row.processes))
        const record = recovered(row.job, now)
        put(record)
        if (record.state === 'running' || record.state === 'queued') jobs++
        else ended.push(record)
      }
      return { jobs, killed, ended }
    },
  }
}
