/**
 * The SQLite state backend, `hookpilot serve`'s default: jobs, their de-dup keys and their progress in one
 * file, so a crash, a deploy or SIGTERM loses nothing that was acknowledged (docs/durability.md). One process
 * serves a file; `hookpilot jobs` may read and change it at the same time.
 */
import { GatewayError, messageOf } from '../../../core/errors.js'
import { jobPool } from '../../../core/jobs/worker/pool.js'
import { reservationBook } from '../../../core/jobs/worker/reservations.js'
import type { JobStore } from '../../../core/jobs/worker/job-store.js'
import type { StateBackend } from '../../../core/jobs/lifecycle/state-backend.js'
import { addJob, purgeJobs, retryJob } from '../../../core/jobs/worker/store-writes.js'
import { checkedRetention } from '../../../core/jobs/lifecycle/transitions.js'
import { housekeep } from '../../../core/jobs/worker/housekeeping.js'
import { silentLogger } from '../../../core/log/logger.js'
import type { Clock, Logger } from '../../../core/types.js'
import { workerCompressor, type Compressor } from '../compressor.js'
import { lostFileGuard, type LostFileGuard } from './lost-file.js'
import { capForTests, openStateDb, type Db, type SyncMode } from './open.js'
import { roomProbe } from './room-probe.js'
import { storeHealth, type StoreHealth } from './store-health.js'
import { sqliteTable, type SqlitePayload, type SqliteTable } from './table.js'
import { sqliteJobsView, type SqliteJobsView } from './view.js'
import { groupCommit, type Writer } from './writer.js'
import { sqliteNotes } from './sqlite-notes.js'
import type { NoteStore } from '../../../core/jobs/lifecycle/notes.js'

/** Options of {@link sqliteState}. */
export interface SqliteStateOptions {
  /** The database file (created with its folder if missing). */
  readonly path: string
  readonly sync?: SyncMode | undefined
  /** Agent runs at once. */
  readonly concurrency: number
  /** Most jobs waiting; past it a request is answered 503. */
  readonly maxQueue: number
  /** How long a done job holds its delivery id after it finished. Defaults to one hour. */
  readonly dedupWindowMs?: number | undefined
  /** How long done jobs are kept (at least the de-dup window). Defaults to 24 hours. */
  readonly keepDoneMs?: number | undefined
  /** How long failed jobs are kept for `hookpilot jobs retry`. Defaults to 7 days. */
  readonly keepFailedMs?: number | undefined
  /** How long a lease lasts without renewal before another process may take the job. Defaults to 30 s. */
  readonly leaseMs?: number | undefined
  /** Longest sleep of the worker pool between looks at the table. Defaults to 1,000 ms. */
  readonly pollMs?: number | undefined
  readonly now?: Clock | undefined
}

/**
 * Creates a SQLite backend; the file is opened by `start()`.
 *
 * @example
 * ```ts
 * const state = sqliteState({ path: '/var/lib/hookpilot/state.db', concurrency: 4, maxQueue: 1000 })
 * const gateway = await createGateway(config, [definePlugin({ name: 'my-state', setup: () => ({ name: 'my-state', state }) })])
 * ```
 */
export function sqliteState(options: SqliteStateOptions): StateBackend {
  const now = options.now ?? Date.now
  const leaseMs = options.leaseMs ?? 30_000
  const retention = checkedRetention({ windowMs: options.dedupWindowMs, keepDoneMs: options.keepDoneMs, keepFailedMs: options.keepFailedMs })
  const book = reservationBook()
  let log: Logger = silentLogger
  let opened: {
    db: Db; writer: Writer; table: SqliteTable; view: SqliteJobsView; notes: NoteStore; health: StoreHealth; compressor: Compressor | undefined; file?: LostFileGuard
  } | undefined
  let timers: NodeJS.Timeout[] = []
  /** Adds on their way to the table (their payload being compressed, or their write not committed yet). */
  const adding = new Set<Promise<unknown>>()
  const inFlight = <T>(add: Promise<T>): Promise<T> => {
    adding.add(add)
    const done = () => adding.delete(add)
    add.then(done, done)
    return add
  }

  const open = () => {
    if (!opened) throw new GatewayError('ERR_STATE', 'The SQLite state backend is not started (or already closed).')
    return opened
  }
  const pool = jobPool(
    {
      lease: (max, t, until) => {
        const { table, health } = open()
        // Not while the file cannot be written: the agents would run for answers that cannot be stored, again
        // at each of the pool's pauses. The probe wakes the pool once writes work.
        if (health.problem !== undefined) return Promise.reject(new GatewayError('ERR_STATE', health.problem))
        return table.lease(max, t, until)
      },
      update: (id, token, change, after) => open().table.update(id, token, change, after),
      renew: (held, until) => open().table.renew(held, until),
      recordProcess: (id, token, pid) => open().table.recordProcess(id, token, pid),
      nextDue: () => opened?.table.nextDue(),
      unfinished: () => opened?.table.unfinished() ?? 0,
    },
    { concurrency: options.concurrency, now, log: () => log, pollMs: options.pollMs, leaseMs },
  )

  async function housekeeping(): Promise<void> {
    const { table } = open()
    await housekeep({ recover: (t) => table.recover(t), purge: (cutoff) => table.transaction((tx) => tx.purge(cutoff)) }, pool, retention, log, now())
  }

  /**
   * The table as the kit's store, while the file is open: an add is refused (503) once the file was lost (deleted
   * or replaced under the open database), before its payload is compressed.
   */
  const store: JobStore<SqlitePayload> = {
    prepare(job) {
      const lost = open().file?.check()
      if (lost !== undefined) throw new GatewayError('ERR_STATE', lost)
      return open().table.prepare(job)
    },
    transaction: (work, options) => open().table.transaction(work, options),
  }

  const every = (ms: number, work: () => Promise<void>) => {
    const timer = setInterval(() => {
      work().catch((err: unknown) => log.error('state housekeeping failed', { reason: messageOf(err) }))
    }, ms)
    timers.push(timer.unref())
  }

  return {
    name: 'sqlite',
    durable: true,
    where: options.path,
    notes: {
      get: (key) => open().notes.get(key),
      put: (key, value, expected, put) => open().notes.put(key, value, expected, put),
    },
    dedup: {
      reserve(key) {
        return book.reserve(key, () => open().table.holder(key), retention.windowMs, now)
      },
    },
    queue: {
      add: (job, reservation) => inFlight(addJob(store, job, reservation, { maxQueue: options.maxQueue, windowMs: retention.windowMs, now, book, pool })),
      start: (worker) => pool.start(worker),
      stop: (graceMs) => pool.stop(graceMs),
    },
    jobs: {
      list: (filter) => open().view.list(filter),
      get: (id) => open().view.get(id),
      find: (route, deliveryId) => open().view.find(route, deliveryId),
      retry: (id, mode = 'resume') => retryJob(store, id, mode, now, pool),
      purge: (before) => purgeJobs(store, before, now(), retention.windowMs),
      counts: () => open().view.counts(),
    },
    async start(ctx) {
      log = ctx.log
      // An admin command never creates the file: there is nothing to show before a gateway made it.
      const db = openStateDb(options.path, options.sync ?? 'normal', { create: ctx.admin !== true })
      capForTests(db)
      // Bound late: the probe writes through the writer that reports to the health.
      let probe = (): Promise<void> => Promise.resolve()
      const health = storeHealth({ path: options.path, log: () => log, probe: () => probe(), recovered: () => pool.wake() })
      // Each commit that stores new jobs looks at the file first (a stat), so no 202 goes out for a lost file.
      const lostFile = (): Error | undefined => {
        const lost = opened?.file?.check(true)
        return lost === undefined ? undefined : new GatewayError('ERR_STATE', lost)
      }
      const writer = groupCommit(db, (err) => health.failed(err), lostFile)
      probe = roomProbe(db, writer)
      // An admin command stores no new jobs: no thread for their payloads.
      const compressor = ctx.admin === true ? undefined : workerCompressor((err) => {
        log.warn('the payload compression thread stopped: payloads are compressed on the request thread from now on', { reason: messageOf(err) })
      })
      const table = sqliteTable(db, writer, compressor && ((json) => compressor.compress(json)))
      opened = { db, writer, health, table, compressor, view: sqliteJobsView(db), notes: sqliteNotes(db, writer, now) }
      if (ctx.admin) return
      const file = lostFileGuard(options.path, () => log, db)
      opened.file = file
      timers.push(setInterval(() => file.check(), 1_000).unref())
      await housekeeping()
      every(Math.min(leaseMs, 60_000), housekeeping)
    },
    async close() {
      for (const timer of timers) clearInterval(timer)
      timers = []
      // Every payload asked for is compressed and every add on its way written, then the last batch commits,
      // before the file closes. Jobs still leased by this process (past the grace period) stay `running` under
      // its name: the next start sees the owner gone and queues them again.
      await opened?.compressor?.close()
      await Promise.allSettled(adding)
      await opened?.writer.run(() => {}).catch(() => {})
      opened?.health.stop()
      if (opened?.file) await opened.file.rescue()
      opened?.db.close()
      opened?.file?.closed()
      opened = undefined
    },
    ready() {
      if (!opened) return { ok: false, reason: 'the state database is closed' }
      const problem = opened.file?.check(true) ?? opened.health.problem
      if (problem !== undefined) return { ok: false, reason: problem }
      try {
        opened.db.prepare('SELECT 1').get()
        return { ok: true }
      } catch (err) {
        return { ok: false, reason: `the state database cannot be read: ${messageOf(err)}` }
      }
    },
  }
}
