/**
 * Group commit of adds: every add asked for in one turn of the event loop runs in one transaction, and each
 * add's promise (its 202) resolves after that transaction committed. A turn's webhooks share one commit (one WAL
 * flush) and one lock of the queued count instead of paying each, as SQLite's writer and the PostgreSQL durable
 * floor do. One batch is in flight at a time: the adds that arrive meanwhile form the next, larger, one.
 *
 * Each add is the kit's own sequence (addJob), run as it is; the batch only shares the transaction, and the
 * table answers what it can from what the batch read at its start (the rows holding the adds' keys, the queued
 * count, ids for the new jobs) and writes the new jobs' rows in one statement before the commit. It runs first
 * without savepoints: a batch then costs a handful of statements whatever its size. When an add fails (a delivery another instance
 * stored at the same moment: a unique violation; a deadlock), PostgreSQL has aborted the whole transaction, so
 * it is rolled back and the batch runs again with a savepoint per add: a failing add then undoes only its own
 * writes, the others commit, and an add that lost a race is tried again in the next batch (where it reads what
 * the winner committed).
 */
import type pg from 'pg'
import type { AsyncJobTransaction } from '../../../backend-kit/index.js'
import { withTransaction } from './transaction.js'

/** One add's write: its sequence over the batch's transaction. */
type Work<T> = (tx: AsyncJobTransaction<string>) => Promise<T>

/** The transaction of one batch, as the table opens it over a held connection. */
export interface BatchTransaction extends AsyncJobTransaction<string> {
  /** Writes what the adds so far left for later (the new jobs' rows, in one statement). */
  flush(): Promise<void>
  /** The add just rolled back to its savepoint: forget what was read, counted or left to write on its behalf. */
  rolledBack(): void
}

/** Opens a batch's transaction on `client` (BEGIN already sent) for `adds` adds of de-dup `keys`. */
export type OpenBatch = (client: pg.PoolClient, keys: readonly string[], adds: number) => Promise<BatchTransaction>

interface Pending {
  readonly key: string | undefined
  readonly work: Work<unknown>
  readonly resolve: (value: unknown) => void
  readonly reject: (err: unknown) => void
  /** Batches this add already lost a race in. */
  tries: number
}

/** What became of one add in a batch. */
type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly err: unknown }

/** An add of a batch without savepoints failed: the batch's transaction is rolled back (the add's error is `cause`). */
class BatchFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('an add of the batch failed')
  }
}

/** Most adds in one transaction: PostgreSQL keeps 64 subtransactions per transaction in shared memory, past which every snapshot slows. */
const MAX_BATCH = 60
/** Batches an add may lose a race in before its error is the answer. */
const MAX_TRIES = 5
/** SQLSTATEs of an add that lost a race and is tried again: a unique violation, a serialization failure, a deadlock. */
const RACES = new Set(['23505', '40001', '40P01'])

const isRace = (err: unknown) => {
  const code = (err as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && RACES.has(code)
}

/** Runs adds in batched transactions. */
export interface AddCommit {
  /** Queues the add of de-dup key `key` (if any) for the next batch; resolves its result once committed. */
  run<T>(key: string | undefined, work: Work<T>): Promise<T>
}

/** Creates the group commit over `pool`; `open` gives each batch its transaction's primitives. */
export function addCommit(pool: pg.Pool, open: OpenBatch): AddCommit {
  let waiting: Pending[] = []
  let scheduled = false
  let inFlight = false

  const schedule = () => {
    if (scheduled || inFlight || waiting.length === 0) return
    scheduled = true
    setImmediate(() => {
      scheduled = false
      void flush()
    })
  }

  async function flush(): Promise<void> {
    inFlight = true
    const batch = waiting.slice(0, MAX_BATCH)
    waiting = waiting.slice(batch.length)
    try {
      let outcomes: Outcome[]
      try {
        outcomes = await attempt(batch, false)
        if (outcomes.some((o) => !o.ok)) outcomes = await attempt(batch, true)
      } catch (err) {
        // The transaction itself failed (the connection, the commit): no add of the batch is stored.
        outcomes = batch.map(() => ({ ok: false, err }))
      }
      const again: Pending[] = []
      batch.forEach((item, i) => {
        const outcome = outcomes[i]!
        if (outcome.ok) item.resolve(outcome.value)
        else if (isRace(outcome.err) && ++item.tries < MAX_TRIES) again.push(item)
        else item.reject(outcome.err)
      })
      waiting = [...again, ...waiting]
    } finally {
      inFlight = false
      schedule()
    }
  }

  /**
   * One transaction over `batch`. Without savepoints it stops at the first failing add (the transaction is
   * aborted) and rolls back: every outcome is then a failure, and the caller runs the batch again with them.
   */
  async function attempt(batch: readonly Pending[], savepoints: boolean): Promise<Outcome[]> {
    try {
      return await withTransaction(pool, async (client) => {
        const keys = batch.flatMap((item) => (item.key === undefined ? [] : [item.key]))
        const tx = await open(client, keys, batch.length)
        const outcomes: Outcome[] = []
        for (const item of batch) {
          if (savepoints) await client.query('SAVEPOINT add')
          try {
            const value = await item.work(tx)
            // With savepoints, each add's rows are written inside its own: a failure is its alone.
            if (savepoints) await tx.flush()
            outcomes.push({ ok: true, value })
          } catch (err) {
            if (!savepoints) throw new BatchFailed(err)
            await client.query('ROLLBACK TO SAVEPOINT add')
            tx.rolledBack()
            outcomes.push({ ok: false, err })
          }
        }
        // Without savepoints the rows of every add are written here, together: which one failed is found by the
        // run with savepoints.
        await tx.flush().catch((err: unknown) => {
          throw new BatchFailed(err)
        })
        return outcomes
      })
    } catch (err) {
      // An add failed in a batch without savepoints: the transaction was rolled back, and every outcome is a failure.
      if (err instanceof BatchFailed) return batch.map(() => ({ ok: false, err: err.cause }))
      throw err
    }
  }

  return {
    run<T>(key: string | undefined, work: Work<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        waiting.push({ key, work, resolve: resolve as (value: unknown) => void, reject, tries: 0 })
        schedule()
      })
    },
  }
}
