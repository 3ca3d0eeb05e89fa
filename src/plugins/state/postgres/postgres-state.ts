/**
 * The PostgreSQL state backend: jobs and their de-dup keys in one table of a PostgreSQL database that every
 * instance shares, so several instances need PostgreSQL and nothing else. It is written only against
 * `hookpilot/backend-kit`: the table (table.ts) implements the kit's primitives in SQL, and every rule of a
 * job's life, the order they apply in, the worker pool with its leases and fencing, and crash recovery are the
 * kit's. Workers are woken by `LISTEN`/`NOTIFY`, with the pool's poll as a backstop.
 */
import pg from 'pg'
import {
  addJob, checkedRetention, dedupKeyOf, housekeep, jobMatcher, jobPool, purgeJobs, reservationBook, retryJob,
  type JobCounts, type JobRecord, type Logger, type StateBackend,
} from '../../../backend-kit/index.js'
import type { RateLimiter } from '../../../core/types.js'
import type { SubscriptionStore } from '../../../core/routes/subscriptions/subscription-store.js'
import { postgresLimiter } from './limiter.js'
import { listenOn, type Listener } from './listener.js'
import { postgresNotes } from './postgres-notes.js'
import { postgresSubscriptionStore } from './subscriptions.js'
import { migrate, schemaIdent } from './schema.js'
import { jobsChannel, keyColumn, postgresTable, toRecord, type PostgresTable } from './table.js'

/** Options of {@link postgresState}. */
export interface PostgresStateOptions {
  /**
   * The connection URL (`postgres://user:password@host:5432/db?sslmode=verify-full`). Unset, the usual `PG*`
   * variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE) say where.
   */
  readonly url?: string | undefined
  /** The schema holding hookpilot's tables (created if missing). Defaults to `hookpilot`. */
  readonly schema?: string | undefined
  /** Most connections the pool opens (one more listens for new jobs). Defaults to 10. */
  readonly poolMax?: number | undefined
  /** TLS options given to `pg` (a CA to trust, a client certificate); given, they decide over the URL's `sslmode`. */
  readonly ssl?: pg.ClientConfig['ssl'] | undefined
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
  /** How long a lease lasts without renewal before another instance may take the job. Defaults to 30 s. */
  readonly leaseMs?: number | undefined
  /** Longest sleep of the worker pool between looks at the table (the backstop of LISTEN). Defaults to 1,000 ms. */
  readonly pollMs?: number | undefined
  readonly now?: (() => number) | undefined
  /**
   * The rate limit's clock. Unset (a deployment), PostgreSQL's own clock decides the window, the same for every
   * instance; tests give their fake clock.
   */
  readonly rateNow?: (() => number) | undefined
}

/** The backend, and the rate limiter and subscription store that share its connections. */
export interface PostgresStores {
  readonly state: StateBackend
  /** The per-route limit counted over every instance (rate_hits). */
  readonly rateLimiter: RateLimiter
  /** The dynamic subscriptions of every instance (one row, its changes announced by NOTIFY). */
  readonly subscriptions: SubscriptionStore
}

/** How long one statement may take before the write is given up (and the webhook answered 503). */
const QUERY_TIMEOUT_MS = 4_000

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} }
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err))

/**
 * The connection settings for `pg`, from the options (and, for what they leave out, the PG* variables). `pg` lets
 * a URL's `sslmode` replace the `ssl` option whole, so when TLS options are given the URL's `sslmode` is left out:
 * they decide (a CA given means the server's certificate is checked against it, as `verify-full`).
 */
export function connectionConfig(options: Pick<PostgresStateOptions, 'url' | 'ssl'>): pg.ClientConfig {
  let url = options.url
  if (url !== undefined && options.ssl !== undefined) {
    try {
      const parsed = new URL(url)
      parsed.searchParams.delete('sslmode')
      url = parsed.toString()
    } catch {
      // Left as written: pg reports what it cannot parse.
    }
  }
  return {
    ...(url === undefined ? {} : { connectionString: url }),
    ...(options.ssl === undefined ? {} : { ssl: options.ssl }),
    application_name: 'hookpilot',
    // A server that does not answer (frozen, cut off with the connection open) is an outage, said plainly, not a
    // request that hangs: a webhook is answered 503 well inside GitHub's 10 s. A query that times out ends its
    // connection (the pool drops it), so no late answer is read as another query's.
    connectionTimeoutMillis: 5_000,
    query_timeout: QUERY_TIMEOUT_MS,
  }
}

/** Where the state is, for messages: host, port, database and schema, never a password. */
export function whereOf(options: Pick<PostgresStateOptions, 'url' | 'schema'>): string {
  const env = process.env
  let host = env['PGHOST'] ?? 'localhost'
  let port = env['PGPORT'] ?? '5432'
  let database = env['PGDATABASE'] ?? env['PGUSER'] ?? ''
  if (options.url !== undefined) {
    try {
      const url = new URL(options.url)
      host = url.hostname || host
      port = url.port || '5432'
      database = decodeURIComponent(url.pathname.replace(/^\//, '')) || database
    } catch {
      host = '(an unparsable URL)'
    }
  }
  return `PostgreSQL ${host}:${port}/${database} (schema ${options.schema ?? 'hookpilot'})`
}

/**
 * Creates a PostgreSQL backend; it connects and migrates in `start()`.
 *
 * @example
 * ```ts
 * const state = postgresState({ url: process.env.DATABASE_URL, concurrency: 4, maxQueue: 1000 })
 * ```
 */
export function postgresState(options: PostgresStateOptions): StateBackend {
  return postgresStores(options).state
}

/**
 * Creates a PostgreSQL backend with the rate limiter and subscription store that share its connections (usable
 * once the backend started), so that several instances need PostgreSQL and nothing else.
 *
 * @example
 * ```ts
 * const { state, rateLimiter, subscriptions } = postgresStores({ url: process.env.DATABASE_URL, concurrency: 4, maxQueue: 1000 })
 * const gateway = await createGateway(config, [{ name: 'postgres', state, rateLimiter, subscriptions }])
 * ```
 */
export function postgresStores(options: PostgresStateOptions): PostgresStores {
  const now = options.now ?? Date.now
  const leaseMs = options.leaseMs ?? 30_000
  const schema = options.schema ?? 'hookpilot'
  const s = schemaIdent(schema)
  const retention = checkedRetention({ windowMs: options.dedupWindowMs, keepDoneMs: options.keepDoneMs, keepFailedMs: options.keepFailedMs })
  const book = reservationBook()
  const where = whereOf(options)
  let log: Logger = silent
  let opened: { pool: pg.Pool; table: PostgresTable; listener?: Listener } | undefined
  let timers: NodeJS.Timeout[] = []
  /** The last failure to reach the database, until a query works again (what `/ready` says). */
  let problem: string | undefined

  const open = () => {
    if (!opened) throw new Error(`The PostgreSQL state backend is not started (or already closed): ${where}.`)
    return opened
  }
  /** A query of the jobs view, or of a reservation, noting whether the database answers. */
  const watched = async <T>(query: () => Promise<T>): Promise<T> => {
    try {
      const result = await query()
      problem = undefined
      return result
    } catch (err) {
      problem = `${where} cannot be reached or written: ${messageOf(err)}`
      throw err
    }
  }

  const pool = jobPool(
    {
      lease: (max, t, until) => watched(() => open().table.lease(max, t, until)),
      update: (id, token, change, after) => open().table.update(id, token, change, after),
      renew: (held, until) => open().table.renew(held, until),
      recordProcess: (id, token, process) => open().table.recordProcess(id, token, process),
      nextDue: () => (opened ? opened.table.nextDue() : undefined),
      unfinished: () => (opened ? opened.table.unfinished().catch(() => 0) : 0),
    },
    { concurrency: options.concurrency, now, log: () => log, pollMs: options.pollMs, leaseMs },
  )

  async function housekeeping(): Promise<void> {
    const { table } = open()
    await housekeep({ recover: (t) => table.recover(t), purge: (cutoff) => table.transaction((tx) => tx.purge(cutoff)) }, pool, retention, log, now())
    // Expired notes read as none already; this only keeps the table from growing with them.
    await notes.purgeExpired(now())
  }

  const every = (ms: number, work: () => Promise<void>) => {
    const timer = setInterval(() => {
      work().catch((err: unknown) => log.error('state housekeeping failed', { reason: messageOf(err) }))
    }, ms)
    timers.push(timer.unref())
  }

  const store = () => open().table
  const notes = postgresNotes(() => open().pool, schema, now)
  const rows = async (sql: string, params: unknown[]) => (await watched(() => open().pool.query<{ id: string; record: string }>(sql, params))).rows

  const state: StateBackend = {
    name: 'postgres',
    durable: true,
    where,
    notes: { get: (key) => watched(() => notes.get(key)), put: (key, value, expected, put) => watched(() => notes.put(key, value, expected, put)) },
    dedup: {
      reserve: (key) => book.reserve(key, () => watched(() => open().table.holder(key)), retention.windowMs, now),
    },
    queue: {
      // Through the turn's batch (add-commit.ts), told the job's de-dup key so the batch reads its holder with the others'.
      add: (job, reservation) => watched(() => addJob(store().adding(job.dedupKey), job, reservation, { maxQueue: options.maxQueue, windowMs: retention.windowMs, now, book, pool })),
      start: (worker) => pool.start(worker),
      stop: (graceMs) => pool.stop(graceMs),
    },
    jobs: {
      async list(filter = {}) {
        // Newest first from the cursor on, a page of rows at a time until the page is full: the state and the
        // cursor narrow the scan in SQL, the kit's matcher decides the rest.
        const matches = jobMatcher(filter)
        const limit = filter.limit ?? Infinity
        let before = filter.before === undefined ? '9223372036854775807' : /^\d{1,18}$/.test(filter.before) ? filter.before : '0'
        const kept: JobRecord[] = []
        for (;;) {
          const page = await rows(
            `SELECT id, record FROM ${s}.jobs WHERE id < $1 AND ($2::text IS NULL OR state = $2) ORDER BY id DESC LIMIT 500`, [before, filter.state ?? null],
          )
          for (const row of page) {
            const job = toRecord(row)
            if (matches(job)) kept.push(job)
            if (kept.length >= limit) return kept
          }
          if (page.length < 500) return kept
          before = String(page[page.length - 1]!.id)
        }
      },
      async get(id) {
        if (!/^\d{1,18}$/.test(id)) return undefined
        const [row] = await rows(`SELECT id, record FROM ${s}.jobs WHERE id = $1`, [id])
        return row && toRecord(row)
      },
      async find(route, deliveryId) {
        const [row] = await rows(`SELECT id, record FROM ${s}.jobs WHERE dedup_key = $1`, [keyColumn(dedupKeyOf(route, deliveryId))])
        return row && toRecord(row)
      },
      retry: (id, mode = 'resume') => retryJob(store(), id, mode, now, pool),
      purge: (before) => purgeJobs(store(), before, now(), retention.windowMs),
      async counts() {
        const found = await watched(() => open().pool.query<{ state: keyof JobCounts; n: string }>(`SELECT state, count(*) AS n FROM ${s}.jobs GROUP BY state`))
        const counts: Record<keyof JobCounts, number> = { queued: 0, running: 0, done: 0, failed: 0, skipped: 0, superseded: 0 }
        for (const row of found.rows) if (row.state in counts) counts[row.state] = Number(row.n)
        return counts
      },
    },
    async start(ctx) {
      log = ctx.log
      const config = connectionConfig(options)
      const connections = new pg.Pool({ ...config, max: options.poolMax ?? 10 })
      // An idle connection the server dropped (a restart, a failover) is an error on the pool, not a crash.
      connections.on('error', (err) => log.warn('a pooled PostgreSQL connection failed; it is replaced at the next query', { reason: messageOf(err) }))
      // And one the server ends while it is held, between two statements: the next statement fails, which its
      // caller sees; the event itself must be heard, or it would end the process.
      connections.on('connect', (client) => client.on('error', () => {}))
      try {
        const client = await connections.connect()
        // Heard while held: a connection the server ends would otherwise be an unhandled error (its query fails).
        const heard = () => {}
        client.on('error', heard)
        try {
          const { rows: [server] } = await client.query<{ replica: boolean }>('SELECT pg_is_in_recovery() AS replica')
          if (server?.replica) throw new Error('it is a read-only replica (in recovery): point state.url at the primary')
          // An admin command migrates too: `hookpilot subscribe` may be the first to use a new database.
          const applied = await migrate(client, schema)
          if (applied > 0) log.info('migrated the PostgreSQL state schema', { schema, steps: applied })
        } finally {
          client.off('error', heard)
          client.release()
        }
      } catch (err) {
        await connections.end().catch(() => {})
        throw new Error(`cannot open the state in ${where}: ${messageOf(err)}`, { cause: err })
      }
      opened = { pool: connections, table: postgresTable(connections, schema) }
      if (ctx.admin) return
      opened.listener = listenOn(config, jobsChannel(schema), () => pool.wake(), (err) => {
        log.warn('the PostgreSQL connection that listens for new jobs failed; it reconnects, and jobs are looked for by polling meanwhile', { reason: messageOf(err) })
      })
      await housekeeping()
      every(Math.min(leaseMs, 60_000), housekeeping)
    },
    async close() {
      for (const timer of timers) clearInterval(timer)
      timers = []
      const closing = opened
      opened = undefined
      await closing?.listener?.close()
      await closing?.pool.end()
    },
    async ready() {
      if (!opened) return { ok: false, reason: 'the PostgreSQL state backend is closed' }
      try {
        // A probe's answer within 2 s: a frozen server must not hold /ready for the query timeout.
        let timer: NodeJS.Timeout | undefined
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer within 2 s')), 2_000)
        })
        // The connection a write would get: a replica after a failover, or a database made read-only, answers
        // reads and refuses every write, which /ready says plainly.
        const probe = open().pool.query<{ replica: boolean; read_only: string }>(
          "SELECT pg_is_in_recovery() AS replica, current_setting('transaction_read_only') AS read_only",
        )
        const { rows: [server] } = await watched(() => Promise.race([probe, late])).finally(() => clearTimeout(timer))
        if (server?.replica) return { ok: false, reason: `${where} is a read-only replica (in recovery): jobs cannot be stored; point state.url at the primary` }
        if (server?.read_only === 'on') return { ok: false, reason: `${where} is read-only (default_transaction_read_only): jobs cannot be stored` }
        return { ok: true }
      } catch {
        return { ok: false, reason: problem ?? `${where} does not answer` }
      }
    },
  }
  return {
    state,
    rateLimiter: postgresLimiter(() => open().pool, schema, options.rateNow),
    subscriptions: postgresSubscriptionStore(() => open().pool, () => connectionConfig(options), schema, where),
  }
}
