/**
 * The kit's sequences as steps: each write of several rules (store-writes.ts) is written once, as a generator
 * that yields the store primitive it needs next and is resumed with its answer. Two drivers run it: one calls
 * a synchronous {@link JobTransaction} in one go (memory and SQLite, inside their transaction, exactly as a
 * plain function would), the other awaits each primitive of an {@link AsyncJobTransaction} (a network store,
 * inside its open transaction). The order of the rules therefore lives in one place for both kinds of store.
 */
import type { AnyJobStore, AsyncJobTransaction, JobTransaction, TransactionOptions } from './job-store.js'

/** One primitive call a sequence asks its store for: the primitive's name and its arguments. */
export type StoreCall<P> = {
  [K in keyof JobTransaction<P>]-?: { readonly op: K; readonly args: Parameters<NonNullable<JobTransaction<P>[K]>> }
}[keyof JobTransaction<P>]

/** A sequence over a store: yields primitive calls, is resumed with their answers, returns `T`. */
export type Steps<P, T> = Generator<StoreCall<P>, T, unknown>

/**
 * Asks the store for primitive `op` with `args`; `yield*` it inside a sequence to get the typed answer. An
 * optional primitive the store lacks answers undefined.
 */
export function* call<P, K extends keyof JobTransaction<P>>(
  op: K, ...args: Parameters<NonNullable<JobTransaction<P>[K]>>
): Generator<StoreCall<P>, ReturnType<NonNullable<JobTransaction<P>[K]>> | (undefined extends JobTransaction<P>[K] ? undefined : never), unknown> {
  // The driver answers each call with what the primitive of that name returned.
  return (yield { op, args } as unknown as StoreCall<P>) as ReturnType<NonNullable<JobTransaction<P>[K]>>
}

/** Applies `step` to a transaction's primitive of the same name (sync or async: the caller awaits or not). */
function apply<P>(tx: JobTransaction<P> | AsyncJobTransaction<P>, step: StoreCall<P>): unknown {
  const primitive = tx[step.op] as ((...args: readonly unknown[]) => unknown) | undefined
  return primitive?.apply(tx, step.args)
}

/** Runs `steps` to the end over a synchronous transaction, in one go. */
export function driveSync<P, T>(steps: Steps<P, T>, tx: JobTransaction<P>): T {
  for (let next = steps.next(); ; ) {
    if (next.done) return next.value
    next = steps.next(apply(tx, next.value))
  }
}

/** Runs `steps` to the end over an asynchronous transaction, awaiting each primitive before the next. */
export async function driveAsync<P, T>(steps: Steps<P, T>, tx: AsyncJobTransaction<P>): Promise<T> {
  for (let next = steps.next(); ; ) {
    if (next.done) return next.value
    next = steps.next(await apply(tx, next.value))
  }
}

/**
 * Runs the sequence `steps` makes as one write of `store`, whichever kind it is. `steps` is called once per try
 * of the transaction: an async store that rolled back a conflict and runs the write again gets a fresh sequence.
 */
export function written<P, T>(store: AnyJobStore<P>, steps: () => Steps<P, T>, options?: TransactionOptions): Promise<T> {
  if ('awaits' in store) return store.transaction((tx) => driveAsync(steps(), tx), options)
  return store.transaction((tx) => driveSync(steps(), tx), options)
}
