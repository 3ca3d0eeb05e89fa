/**
 * `platforms.github_app.reconcile`: the serving gateway reconciles by itself, once shortly after it starts
 * (`on_start`: what was missed while it was down) and every `every_minutes`: the App's hook, and the repository
 * and organisation hooks the token reaches. A pass never overlaps the previous one; its results are logged and
 * counted (`hookpilot_reconciled_deliveries_total`).
 */
import type { Octokit } from '@octokit/core'
import { messageOf } from '../../core/errors.js'
import type { GatewayEvents } from '../../core/events.js'
import type { StateBackend } from '../../core/jobs/lifecycle/state-backend.js'
import type { Logger } from '../../core/types.js'
import type { GithubApp } from './app.js'
import type { GithubAppConfig } from './options.js'

/**
 * The first pass waits this long after the gateway is composed: GitHub sends a redelivery within seconds, and
 * the listener must be up to take it.
 */
export const START_DELAY_MS = 5_000

/** A running schedule; `stop` clears its timers. */
export interface ReconcileSchedule {
  stop(): void
}

/** Who a pass asks: the App (its hook), and a client with the hooks token (repository and organisation hooks). */
export interface ReconcileClients {
  readonly app?: GithubApp | undefined
  readonly token?: Octokit | undefined
}

/** Starts the passes `settings` asks for on `route`. */
export function scheduleReconcile(clients: ReconcileClients, route: string, settings: GithubAppConfig['reconcile'], state: StateBackend, events: GatewayEvents, log: Logger): ReconcileSchedule {
  const { app, token } = clients
  let running = false
  const pass = async () => {
    if (running) return
    running = true
    try {
      const { reconcileHooks } = await import('./reconcile-hooks.js')
      const summary = await reconcileHooks({
        app: app && (() => app.appClient()), token, hooks: settings.hooks, route, jobs: state.jobs, windowMs: settings.window_hours * 3_600_000,
        maxPages: settings.max_pages, log, onResult: (result) => events.emit('reconciled', { route, result }),
      })
      log.info('reconcile pass done', {
        route, hooks: summary.hooks.length, redelivered: summary.counts.redelivered, present: summary.counts.present, answered: summary.counts.answered,
        refused: summary.counts.error, unlisted_hooks: summary.failed.length,
      })
    } catch (err) {
      log.warn('reconcile pass failed; the next one tries again', { route, reason: messageOf(err).slice(0, 200) })
    } finally {
      running = false
    }
  }
  const timers: NodeJS.Timeout[] = []
  if (settings.on_start) timers.push(setTimeout(() => void pass(), START_DELAY_MS).unref())
  if (settings.every_minutes > 0) timers.push(setInterval(() => void pass(), settings.every_minutes * 60_000).unref())
  return { stop: () => timers.forEach((t) => clearTimeout(t)) }
}
