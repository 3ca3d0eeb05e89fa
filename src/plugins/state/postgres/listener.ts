/**
 * Wakes this instance's worker pool when another instance (or this one) stores a job: `LISTEN` on the schema's
 * channel over a connection of its own, outside the pool. A lost connection is opened again with a growing
 * pause (the pool's poll is the backstop meanwhile), and the pool is woken on each reconnect for the
 * notifications that were missed.
 */
import pg from 'pg'

/** A running listener. */
export interface JobsListener {
  close(): Promise<void>
}

/** Listens on `channel` with a client made by `connect`; calls `wake` on each notification and reconnect. */
export function listenForJobs(config: pg.ClientConfig, channel: string, wake: () => void, failed: (err: unknown) => void): JobsListener {
  let closed = false
  let client: pg.Client | undefined
  let failures = 0
  let timer: NodeJS.Timeout | undefined

  const retry = () => {
    if (closed) return
    failures++
    timer = setTimeout(() => void open(), Math.min(30_000, 250 * 2 ** Math.min(failures, 7))).unref()
  }

  async function open(): Promise<void> {
    const next = new pg.Client(config)
    client = next
    let gone = false
    const lost = (err?: unknown) => {
      if (gone) return
      gone = true
      if (err !== undefined) failed(err)
      void next.end().catch(() => {})
      retry()
    }
    next.on('error', lost)
    next.on('end', () => lost())
    next.on('notification', () => wake())
    try {
      await next.connect()
      await next.query(`LISTEN "${channel}"`)
      if (closed) return void (await next.end().catch(() => {}))
      failures = 0
      wake()
    } catch (err) {
      lost(err)
    }
  }

  void open()
  return {
    async close() {
      closed = true
      clearTimeout(timer)
      const last = client
      client = undefined
      await last?.end().catch(() => {})
    },
  }
}
