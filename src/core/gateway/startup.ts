/**
 * The order in which a gateway starts running jobs, which a restart's durability rests on: every route a stored
 * job may name (a subscription's, a source's watch added at run time) is back before the queue leases its first
 * job, so a job of a subscribed route left from before a restart never fails with `route "…" no longer exists`.
 */
import type { GatewayEvents } from '../events.js'
import type { JobWorker, StateBackend } from '../jobs/lifecycle/state-backend.js'
import type { EventIntake } from '../pipeline/intake.js'
import type { GatewayPlugin } from '../plugin-api/gateway-plugin.js'
import type { SourceRoutes } from '../routes/source-routes.js'
import { startSubscriptionSource, type SubscriptionSource, type SubscriptionSourceOptions } from '../routes/subscriptions/source.js'
import type { SubscriptionStore } from '../routes/subscriptions/subscription-store.js'

/** What {@link startInOrder} needs. */
export interface StartOrder {
  readonly plugins: readonly Pick<GatewayPlugin, 'observe' | 'connect'>[]
  readonly events: GatewayEvents
  readonly state: StateBackend
  /** Where sources that are not HTTP admit their events. */
  readonly intake: EventIntake
  /** The routes of those sources, which they add to and remove from at run time. */
  readonly sourceRoutes: SourceRoutes
  /** The subscription store (the file beside config.yaml, or a plugin's), when there is one. */
  readonly store: SubscriptionStore | undefined
  /** How the store's webhook subscriptions become routes. */
  readonly subscriptions: Omit<SubscriptionSourceOptions, 'store'>
  readonly worker: JobWorker
}

/**
 * Observers first (what the queue reports as it starts, the jobs its recovery ended, is counted too); then the
 * subscriptions are read and applied, and every source is connected and has added its run-time routes (its
 * `connect` resolved); only then does the queue start leasing. A job whose route is still missing then is one
 * whose route was really removed: it fails with a reason that says so.
 */
export async function startInOrder(order: StartOrder): Promise<SubscriptionSource | undefined> {
  const { plugins, events, state, intake, sourceRoutes, store } = order
  for (const plugin of plugins) plugin.observe?.(events, { state })
  const subscriptions = store === undefined ? undefined : await startSubscriptionSource({ ...order.subscriptions, store })
  // A source may admit events already: they are stored, and leased once the queue starts below.
  await Promise.all(plugins.map((plugin) => Promise.resolve(plugin.connect?.(intake, { state, routes: sourceRoutes, subscriptions: store }))))
  state.queue.start(order.worker)
  return subscriptions
}
