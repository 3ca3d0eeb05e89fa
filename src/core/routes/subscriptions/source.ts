/**
 * Keeps a running gateway's dynamic routes in step with its subscription store (the file, or Redis), without a
 * restart and without reading the store per request: the store says when the subscriptions may have changed.
 */
import type { HookpilotConfig } from '../../config/schema.js'
import { messageOf } from '../../errors.js'
import type { MutableRouteTable } from '../route-table.js'
import type { DeliveryTarget, Logger } from '../../types.js'
import { coalesced } from '../../../util/coalesced.js'
import { resolveSubscriptions } from './resolve.js'
import type { SubscriptionStore } from './subscription-store.js'

/** What {@link startSubscriptionSource} needs. */
export interface SubscriptionSourceOptions {
  readonly store: SubscriptionStore
  readonly config: HookpilotConfig
  readonly routes: MutableRouteTable
  readonly targets: ReadonlyMap<string, DeliveryTarget>
  /** Target names a plugin could provide but did not (a disabled platform), with how to enable them. */
  readonly hints?: ReadonlyMap<string, string> | undefined
  readonly log: Logger
}

/** A running subscription source. */
export interface SubscriptionSource {
  /** Reads the store now (it is also read on every change it reports); resolves once applied. */
  refresh(): Promise<void>
  /** Stops watching; the routes loaded last stay in the table. */
  stop(): void
}

/**
 * Loads the subscriptions once, applies them to `routes`, and keeps watching the store. A broken set keeps the
 * last good one and logs why; a deleted file clears the dynamic routes; a bad entry is skipped with a warning
 * naming it. A job names its route, so a job still queued when its subscription is removed fails with a reason
 * that says so (jobs retry runs it again once the route is back); a job already running finishes.
 * `buildGateway` starts one for you; this is for composing your own.
 *
 * @example
 * ```ts
 * const store = fileSubscriptionStore('/srv/hp/.subscriptions.json')
 * const source = await startSubscriptionSource({ store, config, routes, targets, log })
 * // ... later, on shutdown:
 * source.stop()
 * ```
 */
export async function startSubscriptionSource(options: SubscriptionSourceOptions): Promise<SubscriptionSource> {
  const { store, config, routes, targets, hints, log } = options
  const path = store.where
  const staticNames = new Set(routes.list().filter((r) => r.source === 'static').map((r) => r.name))
  let loadedNames: readonly string[] = []
  let stopped = false

  async function check(): Promise<void> {
    const read = await store.read()
    if (stopped) return
    if (read.status === 'missing') {
      if (loadedNames.length > 0) log.info('subscriptions removed: dynamic routes cleared', { file: path })
      routes.setDynamic([])
      loadedNames = []
    } else if (read.status === 'invalid') {
      log.error(`subscriptions are invalid, keeping the ${loadedNames.length} subscription(s) loaded before: ${read.reason}`, { file: path })
    } else {
      const { routes: usable, skipped } = resolveSubscriptions(read.file, { config, targets, hints, staticNames })
      for (const { name, reason } of skipped) log.warn(`subscription "${name}" skipped: ${reason}`, { subscription: name, file: path })
      routes.setDynamic(usable)
      loadedNames = usable.map((r) => r.name)
      log.info(`subscriptions loaded: ${loadedNames.length > 0 ? loadedNames.join(', ') : '(none)'}`, { file: path, skipped: skipped.length })
    }
  }

  // One check at a time; a change during a check asks for one more, so the last change is never missed.
  const refresh = coalesced(() => check().catch((err: unknown) => log.error(`subscriptions: ${messageOf(err)}`, { file: path })), () => stopped)

  await refresh()
  // The watcher's callback cannot wait; refresh() logs a failed check itself and never rejects.
  const unwatch = store.watch(() => void refresh())
  return {
    refresh,
    stop() {
      stopped = true
      unwatch()
    },
  }
}
