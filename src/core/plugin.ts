/**
 * Plugins are plain objects. A plugin may fill any slot; slots that hold one implementation (verifiers,
 * idempotency store, rate limiter, agent runner, queue, logger) take the last plugin's, slots that hold many
 * (event filters, delivery targets) keep all, in order.
 */
import type {
  AgentRunner, Clock, DeliveryTarget, EventFilter, IdempotencyStore, JobQueue, Logger, RateLimiter, Verifier,
} from './types.js'

/** What a plugin can contribute to a gateway. */
export interface GatewayPlugin {
  readonly name: string
  /** Replaces the whole verifier set (tried in order; the first whose header is present decides). */
  readonly verifiers?: readonly Verifier[]
  readonly eventFilters?: readonly EventFilter[]
  readonly idempotencyStore?: IdempotencyStore
  readonly rateLimiter?: RateLimiter
  /** Replaces the built-in runner when `agent.runner` names it (or names no built-in). */
  readonly agentRunner?: AgentRunner
  readonly deliveryTargets?: readonly DeliveryTarget[]
  readonly queue?: JobQueue
  readonly logger?: Logger
  /** The time the pipeline reads (timestamp delivery ids, log throttling); tests pass a fake one. */
  readonly clock?: Clock
}

/**
 * Declares a plugin; an identity function that gives you type checking and inference.
 *
 * @example
 * ```ts
 * export const quiet = definePlugin({ name: 'quiet', eventFilters: [{ name: 'no-drafts', accepts: (e) => e.payload['draft'] !== true }] })
 * ```
 */
export function definePlugin<const P extends GatewayPlugin>(plugin: P): P {
  return plugin
}

/**
 * Declares a delivery target as a plugin.
 *
 * @example
 * ```ts
 * export const auditLog = defineDeliveryTarget({
 *   name: 'audit',
 *   async deliver(answer, { log }) { log.info('answer', { route: answer.route, id: answer.deliveryId }) },
 * })
 * const gateway = await createGateway(config, [auditLog])
 * ```
 */
export function defineDeliveryTarget(target: DeliveryTarget): GatewayPlugin {
  return { name: target.name, deliveryTargets: [target] }
}

/** Declares an agent runner as a plugin; select it with `agent.runner: <name>`. */
export function defineAgentRunner(runner: AgentRunner): GatewayPlugin {
  return { name: runner.name, agentRunner: runner }
}

/** Declares an event filter as a plugin; an event any filter refuses is answered `ignored`. */
export function defineEventFilter(filter: EventFilter): GatewayPlugin {
  return { name: filter.name, eventFilters: [filter] }
}

/** Declares a verifier set as a plugin (it replaces the built-in set). */
export function defineVerifiers(name: string, verifiers: readonly Verifier[]): GatewayPlugin {
  return { name, verifiers }
}

/** Declares an idempotency store as a plugin (it replaces the in-memory one). */
export function defineIdempotencyStore(name: string, store: IdempotencyStore): GatewayPlugin {
  return { name, idempotencyStore: store }
}

/** Declares a rate limiter as a plugin (it replaces the built-in one). */
export function defineRateLimiter(name: string, limiter: RateLimiter): GatewayPlugin {
  return { name, rateLimiter: limiter }
}
