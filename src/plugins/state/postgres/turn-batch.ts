/**
 * One statement per turn of the event loop for a read (or a rate limit's decision) that every request makes:
 * the calls of one turn are gathered and answered by one round trip with arrays, instead of one each. Under a
 * burst, a turn holds as many requests as there are connections sending; alone, a request waits one
 * `setImmediate` for it.
 */

/** Answers `inputs` in their order, in one round trip. */
export type BatchQuery<I, O> = (inputs: readonly I[]) => Promise<readonly O[]>

/** Wraps `query` so that the calls of one turn share one of its calls. */
export function perTurn<I, O>(query: BatchQuery<I, O>): (input: I) => Promise<O> {
  let batch: { input: I; resolve: (output: O) => void; reject: (err: unknown) => void }[] = []
  const flush = () => {
    const items = batch
    batch = []
    query(items.map((item) => item.input)).then(
      (outputs) => items.forEach((item, i) => item.resolve(outputs[i]!)),
      (err: unknown) => items.forEach((item) => item.reject(err)),
    )
  }
  return (input) =>
    new Promise<O>((resolve, reject) => {
      if (batch.length === 0) setImmediate(flush)
      batch.push({ input, resolve, reject })
    })
}
