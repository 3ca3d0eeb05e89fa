/**
 * The Redis keys hookpilot owns beside BullMQ's (`<prefix>:jobs:*`). A delivery id is the sender's text, so a
 * de-dup key is hashed: every key has a bounded length whatever a sender writes.
 */
import { createHash } from 'node:crypto'

/** The BullMQ queue's name (its keys are `<prefix>:jobs:*`). */
export const QUEUE_NAME = 'jobs'

/** The keys of one prefix. */
export interface Keys {
  readonly prefix: string
  /** The job that holds a de-dup key. */
  keyOwner(dedupKey: string): string
  /** The short hold of a de-dup key by the request on its way to storing its job. */
  hold(dedupKey: string): string
  /** The counter job ids come from. */
  readonly sequence: string
  /** A random name of this Redis's data set, so job ids never repeat after Redis lost its data. */
  readonly epoch: string
  /** Admissions between their room being counted and their job being stored (so two instances never overshoot max_queue). */
  readonly admitting: string
  /** BullMQ's key of `type` for the queue (`wait`, `delayed`, a job id, `<id>:lock`). */
  bull(type: string): string
  /** A concurrency group's hash: its queued, running and newest jobs. */
  group(key: string): string
  /** The rolling-minute log of a rate-limit key. */
  rate(key: string): string
  /** A note's hash (redis-notes.ts): its value, version and expiry. */
  note(key: string): string
  /** The unfinished jobs by fair turn (turns.ts): a sorted set of job ids. */
  readonly turns: string
  /** The unfinished jobs of fairness key `fairKey` by turn (turns.ts); '' for no key. */
  keyTurns(fairKey: string | undefined): string
  readonly subscriptions: string
  /** The channel a change of the subscriptions is announced on. */
  readonly subscriptionsChanged: string
}

/** The keys under `prefix`. */
export function keysOf(prefix: string): Keys {
  const hash = (text: string) => createHash('sha256').update(text).digest('base64url')
  return {
    prefix,
    keyOwner: (dedupKey) => `${prefix}:dedup:${hash(dedupKey)}`,
    hold: (dedupKey) => `${prefix}:hold:${hash(dedupKey)}`,
    sequence: `${prefix}:seq`,
    epoch: `${prefix}:epoch`,
    admitting: `${prefix}:admitting`,
    bull: (type) => `${prefix}:${QUEUE_NAME}:${type}`,
    rate: (key) => `${prefix}:rate:${hash(key)}`,
    group: (key) => `${prefix}:group:${hash(key)}`,
    note: (key) => `${prefix}:note:${hash(key)}`,
    turns: `${prefix}:turns`,
    keyTurns: (fairKey) => (fairKey === undefined ? '' : `${prefix}:turns:${hash(fairKey)}`),
    subscriptions: `${prefix}:subscriptions`,
    subscriptionsChanged: `${prefix}:subscriptions:changed`,
  }
}
