/**
 * Typed DI tokens: each names a slot of the gateway and carries the type of what fills it, so the composition
 * root cannot put a RateLimiter where a Source belongs.
 */
import type { StateBackend } from '../jobs/lifecycle/state-backend.js'
import type { SubscriptionStore } from '../routes/subscriptions/subscription-store.js'
import type { AgentRunner, Clock, DeliveryTarget, EventFilter, Logger, RateLimiter, Source } from '../types.js'

/** A slot in the container; `many` slots keep every registration in order, the others keep the last one. */
export interface Token<T, Many extends boolean = false> {
  readonly key: symbol
  readonly many: Many
  /** Phantom: never set, only carries T for the type checker. */
  readonly type?: T
}

function one<T>(name: string): Token<T> {
  return { key: Symbol(`hookpilot.${name}`), many: false }
}
function many<T>(name: string): Token<T, true> {
  return { key: Symbol(`hookpilot.${name}`), many: true }
}

/** Every slot the gateway resolves. */
export const TOKENS = {
  logger: one<Logger>('logger'),
  clock: one<Clock>('clock'),
  sources: one<readonly Source[]>('sources'),
  state: one<StateBackend>('state'),
  rateLimiter: one<RateLimiter>('rateLimiter'),
  subscriptions: one<SubscriptionStore>('subscriptions'),
  agentRunners: many<AgentRunner>('agentRunners'),
  eventFilters: many<EventFilter>('eventFilters'),
  deliveryTargets: many<DeliveryTarget>('deliveryTargets'),
} as const
