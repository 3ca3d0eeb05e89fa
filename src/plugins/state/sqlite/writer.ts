/**
 * Group commit: every write of one turn of the event loop goes into one transaction, and each caller's promise
 * resolves after that transaction committed. Requests that arrive together share one commit (one fsync with
 * `sync: full`) instead of paying one each, and their 202s go out after it.
 *
 * A commit that admits new jobs first asks whether they may be stored at all (`refusal`: the state file is
 * still its path's, a stat of a microsecond): a look once a second let every event of that second be answered
 * 202 into a file already deleted or truncated, and lost (issue 38, item 12). The rest of the batch (progress of
 * running jobs, which the open file keeps and its rescue copy carries) commits as before.
 */
import type { Db } from './open.js'

interface Pending {
  readonly work: () => unknown
  readonly resolve: (value: unknown) => void
  readonly reject: (err: unknown) => void
  readonly admits: boolean
}

/** Options of one write. */
export interface WriteOptions {
  /** The write stores a new job: it is refused, not committed, while the writer's `refusal` says so. */
  readonly admits?: boolean | undefined
}

/** Runs writes in batched transactions. */
export interface Writer {
  /** Queues `work` for the next commit; resolves with its result once committed. */
  run<T>(work: () => T, options?: WriteOptions): Promise<T>
}

/**
 * Creates a writer over `db`; `failed` hears of every write that failed (the store's health watches them), and
 * `refusal`, asked once per commit that admits jobs, gives the error those writes fail with, if any.
 */
export function groupCommit(db: Db, failed: (err: unknown) => void = () => {}, refusal: () => Error | undefined = () => undefined): Writer {
  let batch: Pending[] = []
  // Inside the batch's transaction, better-sqlite3 runs this as a savepoint. Made once: wrapping each item's
  // work with db.transaction() built a new wrapper per write.
  const savepoint = db.transaction((work: () => unknown) => work())
  const commit = db.transaction((items: readonly Pending[]) => {
    const results: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }> = []
    for (const item of items) {
      // A savepoint per item: one failing statement (a constraint) undoes only its own writes.
      try {
        results.push({ ok: true, value: savepoint(item.work) })
      } catch (err) {
        // Some errors (SQLITE_FULL, an I/O error) roll back the whole transaction, not the savepoint: the
        // next items would run and commit one by one outside it, and the COMMIT fail with a misleading error
        // after all were told "not stored". The batch fails with this error instead.
        if (!db.inTransaction) throw err
        results.push({ ok: false, err })
      }
    }
    return results
  })

  function flush(): void {
    let items = batch
    batch = []
    const refused = items.some((item) => item.admits) ? refusal() : undefined
    if (refused !== undefined) {
      for (const item of items) if (item.admits) item.reject(refused)
      items = items.filter((item) => !item.admits)
      if (items.length === 0) return
    }
    let results
    try {
      results = commit.immediate(items)
    } catch (err) {
      failed(err)
      for (const item of items) item.reject(err) // the commit itself failed: nothing of the batch is stored
      return
    }
    results.forEach((result, i) => {
      const item = items[i]!
      if (result.ok) item.resolve(result.value)
      else {
        failed(result.err)
        item.reject(result.err)
      }
    })
  }

  return {
    run<T>(work: () => T, options?: WriteOptions): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (batch.length === 0) setImmediate(flush)
        batch.push({ work, resolve: resolve as (value: unknown) => void, reject, admits: options?.admits === true })
      })
    },
  }
}
