/**
 * One pass of a durable backend's housekeeping, the same for every store: the jobs a stopped process left
 * running go back to the queue (or end, when a newer job of their group outdated them), and finished jobs past
 * their retention are purged; each is reported once. The store gives the two writes; the kit decides the rest.
 */
import type { Logger } from '../../types.js'
import { retentionCutoff, type PurgeCutoff, type Retention } from '../lifecycle/transitions.js'
import type { Recovery } from './crash-recovery.js'
import type { JobPool } from './pool.js'

/** What a housekeeping pass asks of the store: its crash recovery, and a purge in one write. */
export interface HousekeepingStore {
  recover(now: number): Promise<Recovery>
  purge(cutoff: PurgeCutoff): Promise<number>
}

/** Runs one pass at `now`: recovery first (its jobs run again at once), then the purge of what retention lets go. */
export async function housekeep(store: HousekeepingStore, pool: Pick<JobPool, 'ended' | 'wake'>, retention: Retention, log: Logger, now: number): Promise<void> {
  const recovered = await store.recover(now)
  // Those a newer job of their group outdated while they ran ended superseded: counted with the jobs that ended.
  pool.ended(recovered.ended)
  if (recovered.jobs > 0) {
    log.warn('recovered jobs a stopped process left running; they run again', { jobs: recovered.jobs, killed_process_groups: recovered.killed })
    pool.wake()
  }
  const expired = await store.purge(retentionCutoff(now, retention))
  if (expired > 0) log.info('purged finished jobs past their retention', { jobs: expired })
}
