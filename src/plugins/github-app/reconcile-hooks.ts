/**
 * One reconcile pass over every hook the gateway knows of: the GitHub App's own (with the App's JWT), and the
 * repository and organisation hooks a token may read. Which of those: the hooks the route's recent jobs came
 * through (the `hook` each job kept from `X-GitHub-Hook-ID`), read a page at a time, plus the ones config lists
 * (a hook that never delivered anything the gateway took). Each hook is one {@link reconcile} pass, under the
 * same rules, bounds and metrics; one that cannot be listed (the token may not read it) is logged and the others
 * still run.
 */
import { setTimeout as wait } from 'node:timers/promises'
import type { Octokit } from '@octokit/core'
import { messageOf } from '../../core/errors.js'
import type { JobsView } from '../../core/jobs/lifecycle/jobs-view.js'
import { validHook } from '../../core/jobs/lifecycle/origin.js'
import { APP_HOOK } from './deliveries.js'
import { reconcile, redeliveryGap, type ReconcileOptions, type ReconcileResult, type ReconcileSummary } from './reconcile.js'

/** Jobs read a page at a time to find the route's hooks, and how many pages at most (the newest 5,000 jobs). */
const JOBS_PAGE = 500
const JOB_PAGES = 10

/** Options of {@link reconcileHooks}: those of {@link reconcile} but the client and the hook, and the clients. */
export interface ReconcileHooksOptions extends Omit<ReconcileOptions, 'octokit' | 'hook'> {
  /** The App's client (its JWT), when an App is configured: its hook is reconciled. */
  readonly app?: (() => Promise<Octokit>) | undefined
  /** A client with the hooks token, when one is configured: the route's repository and organisation hooks are reconciled. */
  readonly token?: Octokit | undefined
  /** Hooks to look at besides those the route's jobs name (`reconcile.hooks`). */
  readonly hooks?: readonly string[] | undefined
}

/** What a pass over every hook did: the counts summed, and the hooks looked at or that could not be listed. */
export interface HooksSummary extends ReconcileSummary {
  readonly hooks: readonly string[]
  /** Hooks GitHub would not list (a token without access, a hook deleted), with nothing asked of them. */
  readonly failed: readonly string[]
}

/**
 * The repository and organisation hooks the route's jobs came through (the newest 5,000 jobs, a page at a
 * time), and `listed`, each once; the App's hook is not among them (a token cannot read it).
 */
export async function routeHooks(jobs: JobsView, route: string, listed: readonly string[] = []): Promise<string[]> {
  const hooks = new Set<string>()
  let before: string | undefined
  for (let page = 0; page < JOB_PAGES; page++) {
    const found = await jobs.list({ route, limit: JOBS_PAGE, before })
    for (const job of found) {
      const hook = validHook(job.hook)
      if (hook !== undefined && hook !== APP_HOOK) hooks.add(hook)
    }
    if (found.length < JOBS_PAGE) break
    before = found.at(-1)?.id
  }
  for (const hook of listed) hooks.add(hook)
  return [...hooks].sort()
}

/** One pass over the App's hook (when an App is configured) and each hook the token reaches; see the module comment. */
export async function reconcileHooks(options: ReconcileHooksOptions): Promise<HooksSummary> {
  const { app, token, hooks: listed, ...rest } = options
  const passes: Array<{ hook: string; octokit: () => Promise<Octokit> }> = []
  if (app !== undefined) passes.push({ hook: APP_HOOK, octokit: app })
  if (token !== undefined) {
    for (const hook of await routeHooks(options.jobs, options.route, listed)) passes.push({ hook, octokit: async () => token })
  }
  const counts: Record<ReconcileResult, number> = { redelivered: 0, would_redeliver: 0, present: 0, answered: 0, error: 0 }
  const redelivered: string[] = []
  const failed: string[] = []
  let truncated = false
  let asked = false
  const sleep = options.sleep ?? wait
  for (const pass of passes) {
    // The rate of redelivery requests holds across hooks: the next hook's first request waits its turn too.
    if (asked) await sleep(redeliveryGap(options))
    try {
      const summary = await reconcile({ ...rest, hook: pass.hook, octokit: await pass.octokit() })
      for (const [result, n] of Object.entries(summary.counts) as Array<[ReconcileResult, number]>) counts[result] += n
      redelivered.push(...summary.redelivered)
      truncated ||= summary.truncated
      asked = summary.counts.redelivered + summary.counts.error > 0
    } catch (err) {
      failed.push(pass.hook)
      options.log.warn('reconcile: cannot list the hook\'s deliveries; its deliveries were not looked at', { route: options.route, hook: pass.hook, reason: messageOf(err).slice(0, 200) })
    }
  }
  return { counts, redelivered, truncated, hooks: passes.map((p) => p.hook), failed }
}
