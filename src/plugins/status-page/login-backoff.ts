/**
 * Slows down a client that keeps presenting a wrong status token (the login form or a bearer header): after a
 * few free tries, each failure doubles how long it must wait before its next one is even checked, so guessing
 * runs at a few tries an hour, not at the speed of the network. A success forgives the failures. Kept per client
 * address, in memory, for a bounded number of clients (the oldest forgotten first).
 */
import type { Clock } from '../../core/types.js'

/** Options of {@link loginBackoff}. */
export interface LoginBackoffOptions {
  readonly now: Clock
  /** Failures in a row before the first wait (a mistyped token or two); the last of them starts it. */
  readonly freeFailures?: number | undefined
  /** The first wait, in ms; each further failure doubles it. */
  readonly firstWaitMs?: number | undefined
  /** The longest wait, in ms. */
  readonly maxWaitMs?: number | undefined
  /** How many clients are remembered at once. */
  readonly maxClients?: number | undefined
}

/** The failures of each client, and how long each must wait. */
export interface LoginBackoff {
  /** Ms until `client` may present a token again; 0 when it may now. */
  waitMs(client: string): number
  /** Records a wrong token from `client`. */
  failed(client: string): void
  /** Forgets the failures of `client`, which presented the right token. */
  succeeded(client: string): void
}

interface Failures {
  count: number
  until: number
}

/** A {@link LoginBackoff} on `now`: after 5 failures in a row a wait of 1 s, then 2 s, 4 s ... up to 15 minutes. */
export function loginBackoff(options: LoginBackoffOptions): LoginBackoff {
  const free = options.freeFailures ?? 5
  const first = options.firstWaitMs ?? 1_000
  const max = options.maxWaitMs ?? 15 * 60_000
  const maxClients = options.maxClients ?? 10_000
  const clients = new Map<string, Failures>()
  return {
    waitMs(client) {
      const entry = clients.get(client)
      return entry === undefined ? 0 : Math.max(0, entry.until - options.now())
    },
    failed(client) {
      const entry = clients.get(client) ?? { count: 0, until: 0 }
      entry.count += 1
      const over = entry.count - free
      if (over >= 0) entry.until = options.now() + Math.min(max, first * 2 ** Math.min(over, 30))
      // Re-inserted, so the Map's order is the order of last failure: the oldest is forgotten first.
      clients.delete(client)
      clients.set(client, entry)
      if (clients.size > maxClients) clients.delete(clients.keys().next().value as string)
    },
    succeeded(client) {
      clients.delete(client)
    },
  }
}
