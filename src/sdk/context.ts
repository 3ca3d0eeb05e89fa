/** What every query and handle of one client shares: its transport (which holds the concurrency bound). */
import type { Transport } from './http.js'

/** Internal: the per-client state handed to queries and handles. */
export interface ClientContext {
  readonly request: Transport
}

/** Options every terminal accepts. */
export interface CallOptions {
  /** Aborts the call; the promise then rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined
}
