/**
 * `LISTEN` on one channel over a connection of its own, outside the pool: it wakes this instance's worker pool
 * when any instance stores a job, and re-reads the subscriptions when any instance changes them. A lost
 * connection is opened again with a growing pause (the pool's poll is the backstop meanwhile), and `wake` is
 * called on each (re)connect for the notifications that were missed.
 */
import pg from 'pg'

/** A running listener. */
export interface Listener {
  close(): Promise<void>
}

/** Listens on `channel` with a client of `config`; calls `wake` once listening, on each notification and reconnect. */
export function listenOn(config: pg.ClientConfig, channel: string, wake: () => void, failed: (err: unknown) => void): Listener {
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
