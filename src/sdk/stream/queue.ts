/**
 * The hand-off between socket callbacks (push) and one `for await` reader (pull). Unbounded: the reader is the one
 * who decides how fast to go, and a slow reader should see every event, late, rather than a silently thinned stream.
 */

/** A single-reader async queue that can end, or fail with an error. `T` must not include `undefined`. */
export class EventQueue<T> {
  #items: T[] = []
  #head = 0
  #waiter: { resolve: (r: IteratorResult<T, undefined>) => void; reject: (e: unknown) => void } | undefined
  #ended = false
  #error: Error | undefined = undefined

  /** Adds an item; ignored after the end. */
  push(item: T): void {
    if (this.#ended) return
    const waiter = this.#waiter
    if (waiter !== undefined) {
      this.#waiter = undefined
      waiter.resolve({ value: item, done: false })
    } else {
      this.#items.push(item)
    }
  }

  /** Ends the queue: the reader gets what is queued and then the end, or `error` once the queue is drained. */
  end(error?: Error): void {
    if (this.#ended) return
    this.#ended = true
    this.#error = error
    const waiter = this.#waiter
    this.#waiter = undefined
    if (waiter === undefined) return
    if (error === undefined) waiter.resolve({ value: undefined, done: true })
    else waiter.reject(error)
  }

  /** The next queued item, or `undefined` when none is queued (never waits): for a reader that drains in batches. */
  take(): T | undefined {
    if (this.#head >= this.#items.length) return undefined
    const value = this.#items[this.#head++] as T
    // Compact now and then rather than shift() on every read (shift is O(n) on a long backlog).
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head)
      this.#head = 0
    } else if (this.#head === this.#items.length) {
      // Drained: start over rather than let the array grow.
      this.#items.length = 0
      this.#head = 0
    }
    return value
  }

  /** The next item, waiting for one when none is queued. */
  next(): Promise<IteratorResult<T, undefined>> {
    if (this.#head < this.#items.length) return Promise.resolve({ value: this.take() as T, done: false })
    if (this.#ended) return this.#error === undefined ? Promise.resolve({ value: undefined, done: true }) : Promise.reject(this.#error)
    return new Promise((resolve, reject) => (this.#waiter = { resolve, reject }))
  }
}
