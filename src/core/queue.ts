/**
 * The in-memory job queue: at most `concurrency` agent runs at once (p-limit), at most `maxQueue` waiting.
 * A full queue refuses work instead of growing without bound.
 */
import pLimit from 'p-limit'
import type { AgentJob, JobQueue } from './types.js'

/** Options of {@link memoryQueue}. */
export interface MemoryQueueOptions {
  readonly concurrency: number
  readonly maxQueue: number
}

/**
 * Creates the default queue.
 *
 * @example
 * ```ts
 * const queue = memoryQueue({ concurrency: 4, maxQueue: 1000 })
 * ```
 */
export function memoryQueue(options: MemoryQueueOptions): JobQueue {
  const limit = pLimit(options.concurrency)
  const inFlight = new Set<Promise<void>>()
  let worker: ((job: AgentJob) => Promise<void>) | undefined
  let closed = false

  return {
    start(run) {
      worker = run
    },
    enqueue(job) {
      if (closed || !worker || limit.pendingCount >= options.maxQueue) return false
      const run = worker
      const task: Promise<void> = limit(() => run(job))
        .catch(() => {}) // the worker logs its own failures; a rejection must not become unhandled
        .finally(() => inFlight.delete(task))
      inFlight.add(task)
      return true
    },
    async close(graceMs) {
      closed = true
      const all = Promise.all(inFlight).then(() => true)
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), graceMs)
      })
      const finished = await Promise.race([all, timeout])
      clearTimeout(timer)
      if (!finished) limit.clearQueue()
      return finished
    },
  }
}
