/**
 * Where dynamic subscriptions are kept: a file beside config.yaml by default, or a shared store (Redis) that
 * several gateway instances read. The commands (`hookpilot subscribe|list|remove|test|send`) and the running
 * gateway both go through this seam, so they always agree on where the subscriptions are.
 */
import { watch, type FSWatcher } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import type { SubscriptionsFile } from './schema.js'
import { readSubscriptions, updateSubscriptions, type SubscriptionsRead } from './store.js'

/** What {@link SubscriptionStore.update}'s `change` returns: the new set (or none, to write nothing) and a result. */
export interface SubscriptionChange<T> {
  readonly file?: SubscriptionsFile | undefined
  readonly result: T
}

/** A place that keeps the subscriptions, read and changed by any number of processes. */
export interface SubscriptionStore {
  /** Where they are, for messages: the file's path, or the store and its key. Never a password. */
  readonly where: string
  read(): Promise<SubscriptionsRead>
  /**
   * Reads the subscriptions, lets `change` compute the new set, and writes it, atomically with respect to every
   * other writer (a change is never lost to a concurrent one). A broken set is refused rather than replaced.
   */
  update<T>(change: (file: SubscriptionsFile) => SubscriptionChange<T>): Promise<T>
  /**
   * Calls `onChange` (soon, not per write) whenever the subscriptions may have changed, whoever changed them;
   * returns a function that stops watching. A gateway re-reads them then, never per request.
   */
  watch(onChange: () => void): () => void
}

/** Options of {@link fileSubscriptionStore}. */
export interface FileStoreOptions {
  /** How often the file's stat is polled, as a backstop to `fs.watch`; 1000 ms by default. */
  readonly pollMs?: number | undefined
}

/**
 * The subscriptions file (written atomically, mode 0600, under a cross-process lock). A change is noticed by
 * `fs.watch` on the folder (at once, and it sees atomic renames) and, as a backstop for file systems where
 * watching is unreliable, by a `stat` every second; `onChange` runs only when the stat (inode, size, times) moved.
 */
export function fileSubscriptionStore(path: string, options: FileStoreOptions = {}): SubscriptionStore {
  return {
    where: path,
    read: () => readSubscriptions(path),
    update: (change) => updateSubscriptions(path, change),
    watch(onChange) {
      let lastSeen: string | undefined
      let stopped = false
      const check = async () => {
        const seen = await signature(path)
        if (stopped || seen === lastSeen) return
        // The first look calls too: a write between the caller's first read and this look is not missed.
        lastSeen = seen
        onChange()
      }
      // Looks are fire and forget (a timer or a watcher cannot wait): signature() turns a failed stat into a value,
      // and the gateway's onChange only starts its own refresh, so check() does not reject.
      void check()
      const watcher = watchFolder(path, () => void check())
      const timer = setInterval(() => void check(), options.pollMs ?? 1000).unref()
      return () => {
        stopped = true
        clearInterval(timer)
        watcher?.close()
      }
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
