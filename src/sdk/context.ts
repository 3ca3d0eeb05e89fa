/** What every query and handle of one client shares: its transport and its concurrency bound. */
import type { LimitFunction } from 'p-limit'
import type { Transport } from './http.js'

/** Internal: the per-client state handed to queries and handles. */
export interface ClientContext {
  readonly request: Transport
  /** Bounds fan-out (the chunks of batch reads) to the client's `concurrency`. */
  readonly limit: LimitFunction
}

/** Options every terminal accepts. */
export interface CallOptions {
  /** Aborts the call; the promise then rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined
}
