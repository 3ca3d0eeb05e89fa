/**
 * Whether the state database can be written, as its writes tell. A write that fails because of the storage
 * itself (a full disk, an I/O error, a file gone read-only or damaged) starts an outage: it is logged once,
 * `/ready` answers 503 with the reason, and a small write that needs new pages (as a job's does) is tried
 * again, soon at first then every few seconds, until it commits; then the end is logged and the pool woken.
 * Reads and in-place updates may still work on a full disk, so only the probe ends an outage.
 */
import { backoffDelay, type Backoff } from '../../../util/backoff.js'
import { messageOf } from '../../../core/errors.js'
import type { Logger } from '../../../core/types.js'

/** Between probes of a store in an outage: cheap (one small transaction), so at least every 5 s. */
const PROBE: Backoff = { baseDelayMs: 250, maxDelayMs: 5_000 }

/** What the health of one database needs. */
export interface StoreHealthOptions {
  readonly path: string
  readonly log: () => Logger
  /** A committed write that needs room as a new job does; rejects while the store cannot take one. */
  readonly probe: () => Promise<void>
  /** Called once the store takes writes again (the pool looks for due jobs at once). */
  readonly recovered: () => void
}

/** The write health of the state database. */
export interface StoreHealth {
  /** Notes a failed write: an error of the storage starts an outage (others, a constraint or a lock, do not). */
  failed(err: unknown): void
  /** Why the database cannot be written now; undefined while it can. */
  readonly problem: string | undefined
  /** Stops probing (the database closes). */
  stop(): void
}

/** Creates the health of the database at `options.path`. */
export function storeHealth(options: StoreHealthOptions): StoreHealth {
  let problem: string | undefined
  let since = 0
  let probes = 0
  let timer: NodeJS.Timeout | undefined
  let stopped = false

  function probeLater(): void {
    if (stopped) return
    timer = setTimeout(() => {
      options.probe().then(() => {
        if (stopped) return
        options.log().info('the state database can be written again: webhooks are accepted and waiting jobs run', {
          path: options.path, outage_seconds: Math.round((Date.now() - since) / 1000),
        })
        problem = undefined
        options.recovered()
      }, () => {
        probes++
        probeLater()
      })
    }, backoffDelay(PROBE, probes + 1)).unref()
  }

  return {
    failed(err) {
      const why = storageProblem(err)
      if (why === undefined || problem !== undefined || stopped) return
      problem = `the state database cannot be written: ${why}`
      since = Date.now()
      probes = 0
      options.log().error(`${problem}; webhooks are answered 503 and jobs wait (none fails for it) until it can, which is checked every few seconds`, {
        path: options.path, reason: messageOf(err),
      })
      probeLater()
    },
    get problem() {
      return problem
    },
    stop() {
      stopped = true
      clearTimeout(timer)
    },
  }
}

/** What is wrong with the storage, in words an operator acts on; undefined for an error of one write alone. */
export function storageProblem(err: unknown): string | undefined {
  const found = (err as { code?: unknown } | undefined)?.code
  const code = typeof found === 'string' ? found : ''
  if (code === 'SQLITE_FULL') return 'its disk is full (free space on it, or raise its quota)'
  if (code.startsWith('SQLITE_IOERR')) return `an I/O error (${code}): check its disk`
  if (code.startsWith('SQLITE_READONLY')) return `it became read-only (${code}): check its mount and permissions`
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return `the file is damaged (${code}): was it truncated or replaced?`
  if (code.startsWith('SQLITE_CANTOPEN')) return `its file cannot be opened (${code}): was it deleted?`
  return undefined
}
