/**
 * What a plugin contributes, as its `setup` returns it (see `definePlugin`). A plugin may fill any slot;
 * slots that hold one implementation (sources, state backend, rate limiter, agent runner, logger) take the last
 * plugin's, slots that hold many (event filters, delivery targets) keep all, in order. A plugin that holds
 * resources opens them in `start` and closes them in `close`, with the gateway. It names the slots of the folders
 * before plugin-api (jobs, routes, pipeline, http), and imports none of plugin-api's files.
 */
import type { GatewayEvents } from '../events.js'
import type { Endpoint } from '../http/endpoint.js'
import type { LifecycleContext, Readiness, StateBackend } from '../jobs/lifecycle/state-backend.js'
import type { SubscriptionStore } from '../routes/subscriptions/subscription-store.js'
import type { EventIntake } from '../pipeline/intake.js'
import type { SourceRoutes } from '../routes/source-routes.js'
import type { AgentEnvironmentSource, AgentRunner, Clock, DeliveryTarget, EventFilter, Logger, RateLimiter, Route, Source, StartupFinding } from '../types.js'

/** What a plugin contributes to a gateway: the value its `setup` returns. */
export interface GatewayPlugin {
  readonly name: string
  /** Replaces the whole source set (tried in order; the first whose credential header is present decides). */
  readonly sources?: readonly Source[]
  readonly eventFilters?: readonly EventFilter[]
  /** Where accepted jobs are kept: queue, de-dup and the jobs view (replaces the configured backend). */
  readonly state?: StateBackend
  readonly rateLimiter?: RateLimiter
  /** Where dynamic subscriptions are kept (replaces the file beside config.yaml; Redis shares them). */
  readonly subscriptions?: SubscriptionStore
  /** Replaces the built-in runner when `agent.runner` names it (or names no built-in). */
  readonly agentRunner?: AgentRunner
  readonly deliveryTargets?: readonly DeliveryTarget[]
  readonly logger?: Logger
  /** The time the pipeline reads (timestamp delivery ids, log throttling); tests pass a fake one. */
  readonly clock?: Clock
  /** Opens what the plugin holds (connections, files) before the gateway takes requests. */
  start?(ctx: LifecycleContext): Promise<void>
  /** Closes what `start` opened, after the gateway stopped working. */
  close?(): Promise<void>
  /** Whether the plugin can do its work now; `/ready` reports the first that cannot. */
  ready?(): Readiness | Promise<Readiness>
  /** Subscribes to the gateway's events (answered webhooks, agent runs, deliveries): metrics, audit trails. */
  observe?(events: GatewayEvents, ctx: ObserveContext): void
  /** Extra GET paths on the gateway's own listener (`/metrics`, `/status`). */
  readonly endpoints?: readonly Endpoint[]
  /**
   * Variables for the agent's environment, per job (a GitHub App's installation token for the event's
   * repository); every plugin's are applied, in order, over the runner's own environment.
   */
  readonly agentEnvironment?: AgentEnvironmentSource
  /**
   * Startup check of what the plugin needs outside the gateway (a GitHub App's key and id, asked of GitHub),
   * run by `serve`, `createGateway` and `hookpilot check` with the runner's and the targets'.
   */
  preflight?(): Promise<readonly StartupFinding[]>
  /**
   * Files and folders the plugin keeps that no agent may read (a state file's folder, a private key): the
   * agent's sandbox (`agent.sandbox`) hides them behind empty mounts.
   */
  readonly privatePaths?: readonly string[]
  /**
   * The routes of a source that is not HTTP (a market watch each): their jobs run and deliver like a webhook
   * route's, their targets are checked at startup, and no request reaches them (name them with a `:`, which
   * webhook route names cannot hold).
   */
  readonly routes?: readonly PluginRoute[]
  /**
   * Called once the gateway stores jobs, before its queue runs them: a source that is not HTTP starts handing
   * its events to `intake` here, and stops in `close`. A source that adds routes at run time (`ctx.routes`)
   * returns a promise that resolves once the routes it keeps (in `ctx.subscriptions`) are added: the queue
   * leases no job before, so a job of such a route stored before a restart finds its route.
   */
  connect?(intake: EventIntake, ctx: ConnectContext): void | Promise<void>
}

/** A route a plugin contributes (see {@link GatewayPlugin.routes}). */
export interface PluginRoute extends Route {
  /** Where it is configured, for startup problems (`platforms.market.extra.watches.fed-cut`). */
  readonly configPath: string
}

/** What {@link GatewayPlugin.observe} receives besides the events. */
export interface ObserveContext {
  /** The gateway's state backend (its jobs view, for a gauge of queued and running jobs). */
  readonly state: StateBackend
}

/** What {@link GatewayPlugin.connect} receives besides the intake. */
export interface ConnectContext extends ObserveContext {
  /** Adds and removes the source's routes while the gateway runs (a market watch added without a restart). */
  readonly routes: SourceRoutes
  /**
   * The gateway's subscription store (the file beside config.yaml, or Redis), when it has one: a source keeps
   * what it adds at run time there (its own key of the set) and follows its changes with `watch`.
   */
  readonly subscriptions: SubscriptionStore | undefined
}
