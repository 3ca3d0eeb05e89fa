/**
 * The watches added at run time: read from the gateway's subscription store (the `watches` of the file beside
 * config.yaml, or of Redis) when it says they may have changed, never per event. A new entry starts a watch, a
 * removed one stops it, a changed one restarts it (its state is rebuilt from its stored alerts, so nothing is
 * repeated). A broken set keeps the watches running as they are; a bad entry is set aside with its reason.
 */
import { messageOf } from '../../../core/errors.js'
import type { SubscriptionStore } from '../../../core/routes/subscriptions/subscription-store.js'
import type { Logger } from '../../../core/types.js'
import type { WatchConfig } from './options.js'
import { coalesced } from '../../../util/coalesced.js'
import { parseWatchEntry } from './watch-entry.js'

/** What {@link followSubscribedWatches} needs. */
export interface FollowOptions {
  readonly store: SubscriptionStore
  /** The watches of config.yaml: they win a name clash. */
  readonly configured: ReadonlySet<string>
  /** Starts a watch: resolves a function that stops it, or why it cannot run (a target no plugin provides). */
  start(name: string, watch: WatchConfig): (() => Promise<void>) | string
  readonly log: Logger
}

/** Subscribed watches being followed (see {@link followSubscribedWatches}). */
export interface Following {
  /** Resolves once the store's first read is applied: the watches it holds were started (their routes added). */
  readonly ready: Promise<void>
  /** Stops following, and every watch it started. */
  stop(): Promise<void>
}

/** Follows the store until stopped. */
export function followSubscribedWatches(options: FollowOptions): Following {
  const { store, configured, log } = options
  const running = new Map<string, { readonly key: string; readonly stop: () => Promise<void> }>()
  let stopped = false

  async function apply(): Promise<void> {
    const read = await store.read()
    if (stopped) return
    if (read.status === 'invalid') {
      log.error(`[market] subscribed watches are invalid, keeping the ${running.size} running: ${read.reason}`, { store: store.where })
      return
    }
    const wanted = new Map<string, WatchConfig>()
    const entries = read.status === 'ok' ? Object.entries(read.file.watches ?? {}) : []
    for (const [name, raw] of entries) {
      if (configured.has(name)) {
        log.warn(`[market] subscribed watch "${name}" skipped: a watch of config.yaml has the same name and wins; remove or rename one`, { watch: name })
        continue
      }
      const entry = parseWatchEntry(name, raw)
      if (entry.ok) wanted.set(name, entry.value)
      else log.warn(`[market] subscribed watch "${name}" skipped: ${entry.reason}`, { watch: name, store: store.where })
    }
    for (const [name, run] of [...running]) {
      const next = wanted.get(name)
      if (next !== undefined && JSON.stringify(next) === run.key) continue
      running.delete(name)
      await run.stop()
      if (next === undefined) log.info('[market] watch removed', { watch: name })
    }
    for (const [name, watch] of wanted) {
      if (running.has(name)) continue
      const started = options.start(name, watch)
      if (typeof started === 'string') log.warn(`[market] subscribed watch "${name}" skipped: ${started}`, { watch: name })
      else running.set(name, { key: JSON.stringify(watch), stop: started })
    }
  }

  // One read at a time; a change during a read asks for one more, so the last change is never missed.
  const refresh = coalesced(() => apply().catch((err: unknown) => log.error(`[market] subscribed watches: ${messageOf(err)}`, { store: store.where })), () => stopped)
  // The first read now (not when the store's watch first calls): the gateway waits for it before it runs jobs.
  const ready = refresh()
  const unwatch = store.watch(() => void refresh())
  return {
    ready,
    async stop() {
      stopped = true
      unwatch()
      await refresh.settled()
      await Promise.all([...running.values()].map((r) => r.stop()))
      running.clear()
    },
  }
}
