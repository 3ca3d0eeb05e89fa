/**
 * A takeover of another instance's jobs, in the gateway's words: BullMQ's stalled-job check sends back to the
 * queue each running job whose lock ran out unrenewed (its instance died, froze, or lost Redis) and reports
 * them one by one; the gateway says once per check how many it took over and from which lease holder, read
 * from the job (each try writes who holds its lease beside the record).
 */
import { hostname } from 'node:os'
import { Job, type Worker } from 'bullmq'
import { reportEnded } from '../../../core/jobs/worker/try.js'
import type { JobWorker } from '../../../core/jobs/lifecycle/state-backend.js'
import { recovered } from '../../../core/jobs/lifecycle/transitions.js'
import type { Logger } from '../../../core/types.js'
import { recordOf, type JobData } from './records.js'

/** The job hash's field that names the instance and lease of a job's current try. */
export const LEASED_BY = 'leasedBy'

/** The {@link LEASED_BY} value of a lease taken by this process under BullMQ's `token`: the instance, then the lease. */
export function leaseHolder(token: string): string {
  return `${hostname()} pid ${process.pid}${SEPARATOR}${token}`
}

const SEPARATOR = '\n'

/** What {@link takeoverReport} needs. */
export interface TakeoverReportOptions {
  /** The {@link LEASED_BY} field of job `id` (null when it has none). */
  readonly holder: (id: string) => Promise<string | null>
  readonly lockMs: number
  readonly log: () => Logger
  /** How long the reports of one stalled-job check are gathered into one line. Defaults to 200 ms. */
  readonly gatherMs?: number | undefined
}

/** Returns what BullMQ's `stalled` event calls, for each job it sent back to the queue. */
export function takeoverReport(options: TakeoverReportOptions): (jobId: string) => void {
  let gathered: Array<{ id: string; holder: Promise<string | null> }> = []
  let timer: NodeJS.Timeout | undefined

  async function report(): Promise<void> {
    const taken = gathered
    gathered = []
    timer = undefined
    // One line per instance the jobs were taken from, naming each job's lease.
    const byInstance = new Map<string, { jobs: string[]; leases: string[] }>()
    for (const { id, holder } of taken) {
      const [instance = 'an instance that did not say', lease = '?'] = ((await holder) ?? '').split(SEPARATOR).filter(Boolean)
      const entry = byInstance.get(instance) ?? { jobs: [], leases: [] }
      entry.jobs.push(id)
      entry.leases.push(lease)
      byInstance.set(instance, entry)
    }
    for (const [instance, { jobs, leases }] of byInstance) {
      const count = jobs.length === 1 ? '1 running job' : `${jobs.length} running jobs`
      const held = `${leases.length === 1 ? 'lease' : 'leases'} ${leases.join(', ')}`
      options.log().warn(
        `took over ${count} from ${instance} (${held}), which did not renew ${jobs.length === 1 ? 'its lease' : 'their leases'} within lock_seconds (${options.lockMs / 1000} s): queued again, to run once more (${jobs.join(', ')})`,
        { jobs: jobs.length, from: instance, leases: leases.join(', ') },
      )
    }
  }

  return (jobId) => {
    // Read at once: the job is back in the queue, and the next try to lease it writes its own holder there.
    gathered.push({ id: jobId, holder: options.holder(jobId).catch(() => null) })
    // Not awaited by anyone: report() catches its own read and only logs.
    timer ??= setTimeout(() => void report(), options.gatherMs ?? 200).unref()
  }
}

/**
 * A job taken over (its instance died) that a newer job of its group had outdated ends superseded when next
 * taken (the lifecycle's `recovered`): reported to `run` (published and counted) now, once, by the instance whose
 * stalled-job check took it over.
 */
export async function reportStale(bull: Worker<JobData, void, string>, id: string, run: JobWorker, now: () => number, markOf: (id: string) => Promise<string | null>): Promise<void> {
  const [job, mark] = await Promise.all([Job.fromId<JobData, void, string>(bull, id), markOf(id)]).catch(() => [undefined, null] as const)
  if (job === undefined) return
  const record = recordOf(job, 'running', mark ?? undefined)
  if (record.supersededBy === undefined) return
  reportEnded(run, [recovered(record, now())], now())
}
