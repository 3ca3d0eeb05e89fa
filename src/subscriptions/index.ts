/**
 * `hookpilot/subscriptions`: the dynamic subscriptions a gateway keeps beside its config.yaml (the file that
 * `hookpilot subscribe` and `remove` edit), for scripts that read or change it without the command, and the
 * store interface a plugin implements to keep them elsewhere (the Redis backend does).
 *
 * @example
 * ```ts
 * import { loadConfig } from 'hookpilot'
 * import { subscriptionsPath, updateSubscriptions } from 'hookpilot/subscriptions'
 * const file = subscriptionsPath(await loadConfig('config.yaml'), '.')!
 * await updateSubscriptions(file, (f) => ({ file: { ...f, subscriptions: { ...f.subscriptions, nightly: { secret: process.env.NIGHTLY_SECRET } } }, result: undefined }))
 * ```
 * @packageDocumentation
 */
export type { Subscription, SubscriptionInput, SubscriptionsFile } from '../core/routes/subscriptions/schema.js'
export { subscriptionsPath, readSubscriptions, updateSubscriptions, type SubscriptionsRead } from '../core/routes/subscriptions/store.js'
export type { FileLockOptions } from '../core/routes/subscriptions/lock.js'
export {
  fileSubscriptionStore, type SubscriptionStore, type SubscriptionChange, type FileStoreOptions,
} from '../core/routes/subscriptions/subscription-store.js'
