/**
 * First-come queues by name: requests waiting on the same buckets take turns, so only the first of them watches the
 * clock. Without it every waiting request would wake at each refill and all but one go back to sleep, a cost that
 * grows with the square of the queue.
 */

/** Gives the turn to the next in line. Calling it again does nothing. */
export type Release = () => void

interface Waiter {
  readonly go: () => void
}

/** The queues of one budget. */
export class Turns {
  readonly #queues = new Map<string, Waiter[]>()

  /** The turn of `name` at once when nobody holds it or waits for it (no promise to await); else `undefined`. */
  tryEnter(name: string): Release | undefined {
    if (this.#queues.has(name)) return undefined
    const line: Waiter[] = [{ go: () => {} }]
    this.#queues.set(name, line)
    return this.#releaser(name, line)
  }

  /** Resolves when it is the caller's turn; rejects with the signal's reason (leaving the line) when it aborts. */
  enter(name: string, signal: AbortSignal | undefined): Promise<Release> {
    let queue = this.#queues.get(name)
    if (queue === undefined) this.#queues.set(name, (queue = []))
    const line = queue
    return new Promise<Release>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const release = this.#releaser(name, line)
      const onAbort = (): void => {
        const at = line.indexOf(waiter)
        // The one whose turn it is already holds a release; only those still in line leave it here.
        if (at <= 0) return
        line.splice(at, 1)
        reject(signal?.reason)
      }
      const waiter: Waiter = {
        go: () => {
          signal?.removeEventListener('abort', onAbort)
          resolve(release)
        },
      }
      line.push(waiter)
      signal?.addEventListener('abort', onAbort, { once: true })
      if (line.length === 1) waiter.go()
    })
  }

  /** Ends the turn of the first in `line` and gives it to the next. */
  #releaser(name: string, line: Waiter[]): Release {
    let done = false
    return () => {
      if (done) return
      done = true
      line.shift()
      const next = line[0]
      if (next === undefined) this.#queues.delete(name)
      else next.go()
    }
  }
}
