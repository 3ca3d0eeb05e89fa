/**
 * What happens in a gateway, as typed events: each answered webhook, each agent run (with its duration), each
 * delivery try, each failed write to the state store. Metrics (and anything else that watches) subscribe here
 * instead of being written into the request path, and a listener that throws never breaks a request.
 */
import { messageOf } from './errors.js'
import type { FinalState } from './job-state.js'
import type { Logger } from './types.js'

/** Every event and what it carries. Labels are names from the configuration, or fixed words: never a sender's text. */
export interface GatewayEventMap {
  /** A webhook path answered; `route` is undefined for a route that does not exist. */
  readonly request: { readonly route: string | undefined; readonly status: number }
  readonly agentRun: { readonly route: string; readonly outcome: 'ok' | 'failed' | 'timeout'; readonly seconds: number }
  /**
   * What one agent run used, priced where the price table knows its model (`costUsd` absent otherwise); `model` is
   * `unknown` when the runner named none.
   */
  readonly agentUsage: {
    readonly route: string
    readonly model: string
    readonly inputTokens: number
    readonly outputTokens: number
    readonly cachedTokens: number
    readonly costUsd: number | undefined
  }
  /** A budget had no room for a run: the job ended `skipped` (or waits for the budget's next period). */
  readonly budgetRefused: { readonly route: string; readonly budget: 'pull_request' | 'repository_day' | 'installation_month' }
  readonly delivery: { readonly target: string; readonly outcome: 'delivered' | 'failed' | 'retried' }
  /** A job ended: delivered (`done`), `skipped`, `superseded` or `failed`. */
  readonly jobFinished: { readonly route: string; readonly outcome: FinalState }
  /** The state store refused a write on the request path (the sender got a 503). */
  readonly storeError: { readonly operation: string }
  /**
   * A reconcile pass looked at one of the code host's recorded deliveries: `redelivered` (asked for again),
   * `would_redeliver` (a dry run), `present` (the gateway holds its job), `answered` (the gateway answered it
   * 2xx), `error` (the code host refused the redelivery).
   */
  readonly reconciled: { readonly route: string; readonly result: 'redelivered' | 'would_redeliver' | 'present' | 'answered' | 'error' }
}

/** Subscribing to and emitting gateway events. */
export interface GatewayEvents {
  /** Calls `listener` for each `name` event; returns the function that stops it. */
  on<K extends keyof GatewayEventMap>(name: K, listener: (event: GatewayEventMap[K]) => void): () => void
  emit<K extends keyof GatewayEventMap>(name: K, event: GatewayEventMap[K]): void
}

/** Creates the events of one gateway; a failing listener is logged once per event name, then kept quiet. */
export function createEvents(log: Logger): GatewayEvents {
  const listeners = new Map<keyof GatewayEventMap, Set<(event: never) => void>>()
  const reported = new Set<string>()
  return {
    on(name, listener) {
      const set = listeners.get(name) ?? new Set()
      set.add(listener)
      listeners.set(name, set)
      return () => void set.delete(listener)
    },
    emit(name, event) {
      for (const listener of listeners.get(name) ?? []) {
        try {
          ;(listener as (e: typeof event) => void)(event)
        } catch (err) {
          if (reported.has(name)) continue
          reported.add(name)
          log.error('an event listener failed', { event: name, reason: messageOf(err) })
        }
      }
    },
  }
}
