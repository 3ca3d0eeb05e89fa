/**
 * Keeps a running gateway's dynamic routes in step with the subscriptions file, without a restart and without
 * reading the file per request. A change is noticed by `fs.watch` on the folder (at once, and it sees atomic
 * renames) and, as a backstop for file systems where watching is unreliable, by a `stat` every second. The
 * file is read only when its stat (inode, size, times) changed since the last read.
 */
import { watch, type FSWatcher } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import type { HookpilotConfig } from '../config-schema.js'
import type { MutableRouteTable } from '../route-table.js'
import type { DeliveryTarget, Logger } from '../types.js'
import { resolveSubscriptions } from './resolve.js'
import { readSubscriptions } from './store.js'

/** What {@link startSubscriptionSource} needs. */
export interface SubscriptionSourceOptions {
  readonly path: string
  readonly config: HookpilotConfig
  readonly routes: MutableRouteTable
  readonly targets: ReadonlyMap<string, DeliveryTarget>
  /** Target names a plugin could provide but did not (a disabled platform), with how to enable them. */
  readonly hints?: ReadonlyMap<string, string> | undefined
  readonly log: Logger
  /** How often the file's stat is polled, as a backstop to `fs.watch`; 1000 ms by default. */
  readonly pollMs?: number | undefined
}

/** A running subscription source. */
export interface SubscriptionSource {
  /** Checks the file now (it is also checked on every change and every poll); resolves once applied. */
  refresh(): Promise<void>
  /** Stops watching; the routes loaded last stay in the table. */
  stop(): void
}

/**
 * Loads the subscriptions once, applies them to `routes`, and keeps watching the file. A broken file keeps the
 * last good set and logs why; a deleted file clears the dynamic routes; a bad entry is skipped with a warning
 * naming it. A job names its route, so a job still queued when its subscription is removed fails with a reason
 * that says so (jobs retry runs it again once the route is back); a job already running finishes.
 * `buildGateway` starts one for you when it knows where the file is; this is for composing your own.
 *
 * @example
 * ```ts
 * const source = await startSubscriptionSource({ path: '/srv/hp/.subscriptions.json', config, routes, targets, log })
 * // ... later, on shutdown:
 * source.stop()
 * ```
 */
export async function startSubscriptionSource(options: SubscriptionSourceOptions): Promise<SubscriptionSource> {
  const { path, config, routes, targets, hints, log } = options
  const staticNames = new Set(routes.list().filter((r) => r.source === 'static').map((r) => r.name))
  let lastSeen: string | undefined
  let loadedNames: readonly string[] = []
  let stopped = false

  async function check(): Promise<void> {
    const seen = await signature(path)
    if (seen === lastSeen || stopped) return
    lastSeen = seen
    const read = await readSubscriptions(path)
    if (stopped) return
    if (read.status === 'missing') {
      if (loadedNames.length > 0) log.info('subscriptions file removed: dynamic routes cleared', { file: path })
      routes.setDynamic([])
      loadedNames = []
    } else if (read.status === 'invalid') {
      log.error(`subscriptions file is invalid, keeping the ${loadedNames.length} subscription(s) loaded before: ${read.reason}`, { file: path })
    } else {
      const { routes: usable, skipped } = resolveSubscriptions(read.file, { config, targets, hints, staticNames })
      for (const { name, reason } of skipped) log.warn(`subscription "${name}" skipped: ${reason}`, { subscription: name, file: path })
      routes.setDynamic(usable)
      loadedNames = usable.map((r) => r.name)
      log.info(`subscriptions loaded: ${loadedNames.length > 0 ? loadedNames.join(', ') : '(none)'}`, { file: path, skipped: skipped.length })
    }
  }

  // One check at a time; a change during a check asks for one more, so the last change is never missed.
  let running: Promise<void> | undefined
  let again = false
  function refresh(): Promise<void> {
    if (running) {
      again = true
      return running
    }
    running = (async () => {
      do {
        again = false
        await check().catch((err: unknown) => log.error(`subscriptions: ${err instanceof Error ? err.message : String(err)}`, { file: path }))
      } while (again && !stopped)
    })().finally(() => {
      running = undefined
    })
    return running
  }

  await refresh()
  const watcher = watchFolder(path, () => void refresh())
  const timer = setInterval(() => void refresh(), options.pollMs ?? 1000)
  timer.unref()
  return {
    refresh,
    stop() {
      stopped = true
      clearInterval(timer)
      watcher?.close()
    },
  }
}

/** Watches the file's folder (a watch on the file itself is lost when a rename replaces it). */
function watchFolder(path: string, onChange: () => void): FSWatcher | undefined {
  const name = basename(path)
  try {
    const watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
      if (file === null || file === name) onChange()
    })
    watcher.on('error', () => watcher.close()) // the folder went away: polling still notices what happens next
    return watcher
  } catch {
    return undefined // no folder yet, or no watching here: polling covers it
  }
}

async function signature(path: string): Promise<string> {
  try {
    const s = await stat(path, { bigint: true })
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : `error:${(err as Error).message}`
  }
}
