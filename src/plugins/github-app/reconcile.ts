/**
 * Reconcile: ask GitHub to redeliver what the gateway missed. GitHub never redelivers a failed delivery by
 * itself; a gateway that was down for 40 minutes would lose those reviews. For each delivery of one hook (the
 * App's, or a repository's or organisation's: `hook`) in the window, the newest attempt decides: when GitHub
 * recorded it failed (status 0, or 400 and up) and the gateway holds no job for it (`jobs.find(route, guid)`),
 * `POST /<hook>/deliveries/{id}/attempts` has GitHub send it again. A delivery GitHub recorded as answered 2xx
 * was taken or deliberately ignored by a gateway, and is left.
 *
 * Safe to run anywhere, any number of times, on several instances at once: a redelivery carries the same
 * `X-GitHub-Delivery`, so the gateway's de-dup makes each delivery exactly one job, however many reconcilers
 * asked for it. Bounded: pages read, the time window, and redelivery requests per second.
 */
import type { Octokit } from '@octokit/core'
import { setTimeout as wait } from 'node:timers/promises'
import { messageOf } from '../../core/errors.js'
import type { JobsView } from '../../core/jobs/lifecycle/jobs-view.js'
import type { Clock, Logger } from '../../core/types.js'
import { APP_HOOK, listDeliveries, redeliver, type HookDelivery } from './deliveries.js'

/** What became of each delivery looked at: the `result` label of `hookpilot_reconciled_deliveries_total`. */
export type ReconcileResult = 'redelivered' | 'would_redeliver' | 'present' | 'answered' | 'error'

/** Options of {@link reconcile}. */
export interface ReconcileOptions {
  /** A client that may read `hook`'s deliveries: the App's (its JWT) for `app/hook`, else one with a token. */
  readonly octokit: Octokit
  /** The hook, as its REST path: `app/hook` (the default), `repos/OWNER/NAME/hooks/ID` or `orgs/OWNER/hooks/ID`. */
  readonly hook?: string | undefined
  /** The route the hook's URL names: a delivery's job is looked up with `jobs.find(route, guid)`. */
  readonly route: string
  readonly jobs: JobsView
  /** Deliveries attempted within this long before now are looked at. */
  readonly windowMs: number
  /** Pages of 100 attempts read at most; 10 by default. */
  readonly maxPages?: number | undefined
  /** Redelivery requests per second at most; 2 by default (GitHub's secondary limits dislike bursts). */
  readonly perSecond?: number | undefined
  /** Only say what would be redelivered. */
  readonly dryRun?: boolean | undefined
  readonly log: Logger
  readonly clock?: Clock | undefined
  /** Waits between redelivery requests; tests pass one that does not. */
  readonly sleep?: ((ms: number) => Promise<void>) | undefined
  /** Told of each delivery's result (metrics). */
  readonly onResult?: ((result: ReconcileResult) => void) | undefined
}

/** What one pass did. */
export interface ReconcileSummary {
  readonly counts: Readonly<Record<ReconcileResult, number>>
  /** The guids redelivered (or that would be, in a dry run). */
  readonly redelivered: readonly string[]
  /** True when the page bound ended the listing before the window did: run again, or widen max pages. */
  readonly truncated: boolean
}

/** The wait between two redelivery requests: `perSecond` (2 by default) holds. */
export function redeliveryGap(options: Pick<ReconcileOptions, 'perSecond'>): number {
  return 1000 / (options.perSecond ?? 2)
}

/** One pass over the window; see the module comment. */
export async function reconcile(options: ReconcileOptions): Promise<ReconcileSummary> {
  const clock = options.clock ?? Date.now
  const sleep = options.sleep ?? wait
  const gap = redeliveryGap(options)
  const hook = options.hook ?? APP_HOOK
  const { deliveries, truncated } = await listDeliveries(options.octokit, hook, { since: clock() - options.windowMs, maxPages: options.maxPages ?? 10 })
  const counts: Record<ReconcileResult, number> = { redelivered: 0, would_redeliver: 0, present: 0, answered: 0, error: 0 }
  const redelivered: string[] = []
  const count = (result: ReconcileResult) => {
    counts[result] += 1
    options.onResult?.(result)
  }
  let first = true
  for (const delivery of newestAttempts(deliveries)) {
    const fields = { route: options.route, hook, delivery: delivery.guid, event: delivery.event, status: delivery.statusCode }
    if ((await options.jobs.find(options.route, delivery.guid)) !== undefined) count('present')
    else if (delivery.statusCode >= 200 && delivery.statusCode < 400) count('answered')
    else if (options.dryRun === true) {
      redelivered.push(delivery.guid)
      count('would_redeliver')
      options.log.info('reconcile: would ask GitHub to redeliver', fields)
    } else {
      if (!first) await sleep(gap)
      first = false
      try {
        await redeliver(options.octokit, hook, delivery.id)
        redelivered.push(delivery.guid)
        count('redelivered')
        options.log.info('reconcile: asked GitHub to redeliver', fields)
      } catch (err) {
        count('error')
        options.log.warn('reconcile: GitHub refused the redelivery', { ...fields, reason: messageOf(err).slice(0, 200) })
      }
    }
  }
  if (truncated) options.log.warn('reconcile: stopped at the page bound before the end of the window; older deliveries were not looked at', { route: options.route, hook })
  return { counts, redelivered, truncated }
}

/** The newest attempt of each delivery (the list is newest first). */
function newestAttempts(deliveries: readonly HookDelivery[]): HookDelivery[] {
  const seen = new Set<string>()
  return deliveries.filter((d) => !seen.has(d.guid) && seen.add(d.guid))
}
