/**
 * Dynamic subscriptions: routes kept in a JSON file beside config.yaml, added and removed at run time by
 * `hookpilot subscribe` / `remove` (or by your code), and picked up by a running gateway without a restart.
 */
export {
  SUBSCRIPTIONS_VERSION, subscriptionSchema, parseSubscriptionsText, parseEntry, emptySubscriptions,
  type Subscription, type SubscriptionInput, type SubscriptionsFile, type EntryResult,
} from './schema.js'
export {
  DEFAULT_SUBSCRIPTIONS_FILE, subscriptionsPath, readSubscriptions, writeSubscriptions, updateSubscriptions,
  type SubscriptionsRead,
} from './store.js'
export { withFileLock, type FileLockOptions } from './lock.js'
export { resolveSubscriptions, resolveSubscription, type ResolveContext, type ResolvedSubscriptions, type SkippedSubscription } from './resolve.js'
export { startSubscriptionSource, type SubscriptionSource, type SubscriptionSourceOptions } from './source.js'
export { fileSubscriptionStore, type SubscriptionStore, type SubscriptionChange, type FileStoreOptions } from './subscription-store.js'
